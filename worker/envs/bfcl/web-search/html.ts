/**
 * The two page conversions of `fetch_url_content`:
 * - `truncate`: BeautifulSoup's `get_text(separator="\n", strip=True)` after removing `<script>` and
 *   `<style>`: every text node (comments and the doctype are not text), stripped of Python whitespace,
 *   empty ones dropped, joined by newlines;
 * - `markdown`: html2text's main rules (headings `#`, paragraphs and blocks separated by a blank line,
 *   `**strong**`, `_em_`, `` `code` ``, links `[text](href)`, images `![alt](src)`, `  * ` and `  1. `
 *   list items, `> ` quotes, indented `<pre>`, `* * *` rules, script/style/head left out). It does not
 *   wrap lines at 78 columns as html2text does by default (a documented difference, README).
 * Parsed with parse5 (the HTML standard's parser; BeautifulSoup's html.parser differs on malformed markup).
 */
import { parse } from "parse5";

interface Node {
  nodeName: string;
  tagName?: string;
  value?: string;
  childNodes?: Node[];
  content?: Node;
  attrs?: { name: string; value: string }[];
}

const PY_WS = /^[\s\u001c-\u001f\u0085]+|[\s\u001c-\u001f\u0085]+$/g;
const pyStrip = (s: string) => s.replace(PY_WS, "");

const children = (n: Node): Node[] => (n.nodeName === "template" && n.content ? (n.content.childNodes ?? []) : (n.childNodes ?? []));

function textNodes(n: Node, out: string[]): void {
  for (const c of children(n)) {
    if (c.nodeName === "#text") out.push(c.value ?? "");
    else if (c.nodeName === "script" || c.nodeName === "style" || c.nodeName.startsWith("#")) continue;
    else textNodes(c, out);
  }
}

/** `truncate` mode. */
export function htmlToText(html: string): string {
  const out: string[] = [];
  textNodes(parse(html, { scriptingEnabled: false }) as unknown as Node, out);
  return out.map(pyStrip).filter((s) => s !== "").join("\n");
}

const BLOCKS = new Set(["p", "div", "section", "article", "header", "footer", "main", "nav", "aside", "table", "tr", "form", "figure", "dl", "dt", "dd"]);
const SKIP = new Set(["script", "style", "head", "title", "noscript", "template"]);
const attr = (n: Node, name: string) => n.attrs?.find((a) => a.name === name)?.value;

class MarkdownWriter {
  private readonly parts: string[] = [];
  private list: { ordered: boolean; n: number }[] = [];
  private quote = 0;

  private block(): void {
    this.parts.push("\n\n");
  }

  private prefix(): string {
    return "> ".repeat(this.quote);
  }

  inline(n: Node): string {
    const saved = this.parts.length;
    this.walk(n);
    const text = this.parts.splice(saved).join("");
    return text.replace(/\s+/g, " ").trim();
  }

  walk(n: Node): void {
    for (const c of children(n)) this.node(c);
  }

  node(n: Node): void {
    const tag = n.nodeName;
    if (tag === "#text") {
      this.parts.push((n.value ?? "").replace(/\s+/g, " "));
      return;
    }
    if (tag.startsWith("#") || SKIP.has(tag)) return;
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      this.block();
      this.parts.push(`${this.prefix()}${"#".repeat(Number(heading[1]))} ${this.inline(n)}`);
      this.block();
    } else if (tag === "br") this.parts.push("  \n" + this.prefix());
    else if (tag === "hr") {
      this.block();
      this.parts.push("* * *");
      this.block();
    } else if (tag === "strong" || tag === "b") this.parts.push(`**${this.inline(n)}**`);
    else if (tag === "em" || tag === "i") this.parts.push(`_${this.inline(n)}_`);
    else if (tag === "code" || tag === "kbd" || tag === "tt") this.parts.push(`\`${this.inline(n)}\``);
    else if (tag === "a") {
      const href = attr(n, "href");
      const text = this.inline(n);
      this.parts.push(href && !href.startsWith("#") ? `[${text}](${href})` : text);
    } else if (tag === "img") {
      const src = attr(n, "src");
      if (src) this.parts.push(`![${attr(n, "alt") ?? ""}](${src})`);
    } else if (tag === "ul" || tag === "ol") {
      this.block();
      this.list.push({ ordered: tag === "ol", n: 0 });
      this.walk(n);
      this.list.pop();
      this.block();
    } else if (tag === "li") {
      const l = this.list[this.list.length - 1] ?? { ordered: false, n: 0 };
      l.n += 1;
      const indent = "  ".repeat(Math.max(1, this.list.length));
      this.parts.push(`\n${this.prefix()}${indent}${l.ordered ? `${l.n}. ` : "* "}`);
      this.walk(n);
    } else if (tag === "blockquote") {
      this.block();
      this.quote += 1;
      this.parts.push(this.prefix());
      this.walk(n);
      this.quote -= 1;
      this.block();
    } else if (tag === "pre") {
      this.block();
      const raw: string[] = [];
      textNodes(n, raw);
      this.parts.push(
        raw
          .join("")
          .split("\n")
          .map((l) => `    ${l}`)
          .join("\n"),
      );
      this.block();
    } else if (BLOCKS.has(tag)) {
      this.block();
      this.parts.push(this.prefix());
      this.walk(n);
      this.block();
    } else this.walk(n);
  }

  text(): string {
    const lines = this.parts
      .join("")
      .split("\n")
      .map((l) => l.replace(/^ +(?=[^ *\d>])/, "").replace(/(?<! ) +$/, ""));
    return lines.join("\n").replace(/\n{3,}/g, "\n\n").replace(/^\n+/, "").replace(/\n*$/, "\n\n");
  }
}

/** `markdown` mode. */
export function htmlToMarkdown(html: string): string {
  const w = new MarkdownWriter();
  w.walk(parse(html, { scriptingEnabled: false }) as unknown as Node);
  return w.text();
}
