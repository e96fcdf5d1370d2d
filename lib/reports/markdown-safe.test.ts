import remarkGfm from "remark-gfm";
import remarkMath from "remark-math";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { describe, expect, it } from "vitest";
import { mdText, safeNotes } from "./markdown-safe";

interface Node {
  type: string;
  url?: string;
  value?: string;
  children?: Node[];
}
const nodes = (md: string, math: boolean): Node[] => {
  const p = math ? unified().use(remarkParse).use(remarkGfm).use(remarkMath) : unified().use(remarkParse).use(remarkGfm);
  const out: Node[] = [];
  const walk = (n: Node) => {
    out.push(n);
    n.children?.forEach(walk);
  };
  walk(p.parse(md) as Node);
  return out;
};
/** What a Markdown viewer (with or without math) would make markup of: raw HTML, and where links and images go. */
const markup = (md: string) =>
  [true, false].flatMap((math) => nodes(md, math).filter((n) => n.type === "html" || ((n.type === "link" || n.type === "image" || n.type === "definition") && !/^(https?:|mailto:)/i.test(n.url ?? ""))));

describe("Markdown the export writes", () => {
  it("writes users' text literally: no tag, no link, no emphasis of its own", () => {
    for (const text of ['<img src=x onerror="alert(1)">', "[click](javascript:alert(1))", "<javascript:alert(1)>", "**bold** _it_ `code` ~~s~~ $x$ | pipe", "&lt;script&gt;"]) {
      const md = `# ${mdText(text)}`;
      expect(markup(md), text).toEqual([]);
      expect(md, text).not.toMatch(/<[A-Za-z!/?]/);
      // Read back, it is the same text.
      const heading = nodes(md, false).find((n) => n.type === "heading")!;
      const shown = (n: Node): string => (n.type === "text" || n.type === "inlineCode" ? n.value! : (n.children ?? []).map(shown).join(""));
      expect(shown(heading), text).toBe(text);
    }
    expect(mdText("tau2_retail run-1 (v2) [best]")).toBe("tau2_retail run-1 (v2) [best]");
    expect(mdText("a\nb")).toBe("a b");
  });

  it("keeps notes as written, but raw HTML as text, links to http(s) and mailto only, and no tag inside math", () => {
    const notes = [
      "Intro with **bold** and a [paper](https://arxiv.org/abs/1) and <https://example.org> and mail@example.org.",
      "",
      "<div onclick=alert(1)>block *html*</div>",
      "",
      'Inline <img src=x onerror="alert(1)"> and <script>alert(1)</script> here.',
      "",
      "[js](javascript:alert(1)) [data](data:text/html,<b>x</b>) [rel](/runs) <javascript:alert(2)> ![pic](javascript:alert(3)) ![ok](https://img.example/a.png)",
      "",
      "[ref link][r] and [fine][f]",
      "",
      "[r]: javascript:alert(4)",
      "[f]: https://example.org/f",
      "",
      "Math $a < b > c$ and $<img src=x onerror=alert(5)>$ and",
      "",
      "$$",
      "x<y",
      "$$",
      "",
      "| a | b |",
      "| - | - |",
      "| <b>x</b> | 1 |",
      "",
      "```html",
      "<script>kept as code</script>",
      "```",
    ].join("\n");
    const safe = safeNotes(notes);
    expect(markup(safe)).toEqual([]);
    // Outside the code block nothing is a tag.
    expect(safe.replace(/```html[\s\S]*?```/, "")).not.toMatch(/<(?!https:\/\/example\.org>)[A-Za-z!/?]/);
    expect(safe).toContain("Intro with **bold** and a [paper](https://arxiv.org/abs/1) and <https://example.org> and mail@example.org.");
    expect(safe).toContain("&lt;div onclick=alert(1)&gt;block \\*html\\*&lt;/div&gt;");
    expect(safe).toContain('Inline &lt;img src=x onerror="alert(1)"&gt; and &lt;script&gt;alert(1)&lt;/script&gt; here.');
    expect(safe).toContain("js data rel javascript:alert(2) pic ![ok](https://img.example/a.png)");
    expect(safe).toContain("[ref link][r] and [fine][f]");
    expect(safe).not.toContain("javascript:alert(4)");
    expect(safe).toContain("[f]: https://example.org/f");
    expect(safe).toContain("Math $a \\lt  b \\gt  c$ and $\\lt img src=x onerror=alert(5)\\gt $ and");
    expect(safe).toContain("$$\nx\\lt y\n$$");
    expect(safe).toContain("| &lt;b&gt;x&lt;/b&gt; | 1 |");
    expect(safe).toContain("```html\n<script>kept as code</script>\n```");
  });

  it("leaves safe notes byte for byte", () => {
    const notes = "# Results\n\n| run | avg |\n| --- | ---: |\n| a | 1.0 |\n\n$E = mc^2$ and *emphasis*, [a link](https://x.org).\n\n```envace-chart\nmetric: reward/mean\n```\n";
    expect(safeNotes(notes)).toBe(notes);
  });
});
