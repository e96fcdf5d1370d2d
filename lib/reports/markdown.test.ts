import { describe, expect, it } from "vitest";
import { parseInline, parseMarkdown, safeHref } from "./markdown";

describe("markdown subset", () => {
  it("parses headings, paragraphs, lists and fenced code", () => {
    const blocks = parseMarkdown("# Title\n\nfirst line\nsecond line\n\n- a\n- b\n\n1. one\n2. two\n\n```\n<b>x</b>\n```");
    expect(blocks).toEqual([
      { type: "heading", level: 1, children: [{ type: "text", text: "Title" }] },
      { type: "paragraph", children: [{ type: "text", text: "first line second line" }] },
      { type: "list", ordered: false, items: [[{ type: "text", text: "a" }], [{ type: "text", text: "b" }]] },
      { type: "list", ordered: true, items: [[{ type: "text", text: "one" }], [{ type: "text", text: "two" }]] },
      { type: "code", text: "<b>x</b>" },
    ]);
  });

  it("parses inline code, bold, italic and nesting", () => {
    expect(parseInline("a **b _c_** `d*e*` f")).toEqual([
      { type: "text", text: "a " },
      { type: "strong", children: [{ type: "text", text: "b " }, { type: "em", children: [{ type: "text", text: "c" }] }] },
      { type: "text", text: " " },
      { type: "code", text: "d*e*" },
      { type: "text", text: " f" },
    ]);
  });

  it("keeps raw HTML as text", () => {
    expect(parseMarkdown("<script>alert(1)</script> <img src=x onerror=alert(1)>")).toEqual([
      { type: "paragraph", children: [{ type: "text", text: "<script>alert(1)</script> <img src=x onerror=alert(1)>" }] },
    ]);
  });

  it("links only http(s) and mailto targets", () => {
    expect(parseInline("[ok](https://example.com/a?b=1)")).toEqual([
      { type: "link", href: "https://example.com/a?b=1", children: [{ type: "text", text: "ok" }] },
    ]);
    for (const bad of ["javascript:alert(1)", "JAVASCRIPT:alert(1)", "data:text/html,x", "//evil.example", "/runs/1", "vbscript:x"]) {
      expect(parseInline(`[x](${bad})`), bad).toEqual([{ type: "text", text: "x" }]);
    }
    expect(safeHref("mailto:a@b.c")).toBe("mailto:a@b.c");
    expect(safeHref(" https://x.y ")).toBe("https://x.y");
  });

  it("treats unmatched markers and escapes literally", () => {
    expect(parseInline("2 * 3 = 6, a_b_c? \\*not em\\*")).toEqual([{ type: "text", text: "2 * 3 = 6, a_b_c? *not em*" }]);
  });
});
