/**
 * What the Markdown export writes of users' text, escaped as the app escapes it (the app shows titles,
 * run names and captions as text, and renders notes with raw HTML as text and links to http(s) and mailto
 * only: app/_components/report/markdown-view.tsx), so the exported file is as harmless in any Markdown
 * viewer as the report is in the app. Pure.
 *
 * - `mdText`: a user's text (a title, a run name, a caption, an embed's error line) as literal inline
 *   Markdown: `&`, `<` and `>` as entities, Markdown punctuation backslash-escaped, on one line.
 * - `safeNotes` edits: the notes as written, except raw HTML (shown as its text), a `<` in text (as
 *   `&lt;`, for viewers whose HTML parser would see a tag where Markdown sees none), links and images to
 *   anything but http(s) / mailto (their text, or their alt text), link definitions to anything else
 *   (dropped), and `<`, `>` inside math (as \lt, \gt: the same formula, and no tag for a viewer without
 *   math). Everything else — GFM tables, emphasis, code, $math$ — passes through byte for byte.
 */
import remarkGfm from "remark-gfm";
import remarkMath from "remark-math";
import remarkParse from "remark-parse";
import { unified } from "unified";

const parser = unified().use(remarkParse).use(remarkGfm).use(remarkMath);

/**
 * Inline Markdown escaping: `<` and `>` as entities (never a tag), `&` where it would start an entity, and
 * backslashes before what makes emphasis, code, inline links, tables, strikethrough or math. An underscore
 * inside a word (`tau2_retail`) makes no emphasis and is left as it is.
 */
function escapeInline(text: string): string {
  return text
    .replace(/&(?=#?[A-Za-z0-9]+;)/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\`*|~$]/g, (c) => `\\${c}`)
    // A link or an image needs "](": with that broken, brackets are only brackets (a [label] alone links
    // only to a definition in the notes, and those are http(s) or gone).
    .replace(/\]\(/g, "\\](")
    .replace(/_/g, (c, i: number, all: string) => (/[A-Za-z0-9]/.test(all[i - 1] ?? "") && /[A-Za-z0-9]/.test(all[i + 1] ?? "") ? c : "\\_"));
}

/** Text as literal Markdown, keeping its line breaks: nothing in it is markup. */
export function mdLiteral(text: string): string {
  return (
    escapeInline(text)
      // What starts a block only at the start of a line: indentation (code), headings, lists, setext underlines.
      .replace(/^[ \t]+/gm, "")
      .replace(/^([#+=-])/gm, "\\$1")
      .replace(/^(\d+)([.)])/gm, "$1\\$2")
  );
}

/** A user's text as literal inline Markdown on one line (titles, run names, captions, error lines), after other text. */
export function mdText(text: string): string {
  return escapeInline(text.replace(/\r?\n|\r/g, " "));
}

/** Link and image targets the export keeps: web pages and mail addresses, as the app links them. */
export function isSafeUrl(url: string): boolean {
  return /^(https?:\/\/|mailto:)/i.test(url.trim());
}

export interface Edit {
  start: number;
  end: number;
  text: string;
}

interface MdNode {
  type: string;
  url?: string;
  alt?: string | null;
  value?: string;
  position?: { start: { offset?: number }; end: { offset?: number } };
  children?: MdNode[];
}

function textOf(node: MdNode): string {
  if (typeof node.value === "string" && node.type !== "html") return node.value;
  if (node.type === "html") return node.value ?? "";
  return (node.children ?? []).map(textOf).join("");
}

/** The source of a math node with `<` and `>` written as TeX commands. */
function safeMath(source: string): string {
  return source.replace(/</g, "\\lt ").replace(/>/g, "\\gt ");
}

/**
 * The edits that make `notes` safe (see the module comment), in order, never overlapping; code blocks
 * (and so envace-chart / envace-table embeds) are never edited.
 */
export function safeNotesEdits(notes: string): Edit[] {
  const edits: Edit[] = [];
  const visit = (node: MdNode) => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    const at = (text: string) => {
      if (start !== undefined && end !== undefined) edits.push({ start, end, text });
    };
    switch (node.type) {
      case "code":
      case "inlineCode":
        return;
      case "html":
        return at(mdLiteral(node.value ?? ""));
      case "link":
        if (!isSafeUrl(node.url ?? "")) return at(mdText(textOf(node)));
        break;
      case "image":
        if (!isSafeUrl(node.url ?? "") || /^mailto:/i.test(node.url ?? "")) return at(mdText(node.alt ?? ""));
        return;
      case "definition":
        if (!isSafeUrl(node.url ?? "")) return at("");
        return;
      case "text":
        // Not a tag by Markdown's rules (`<svg/onload=…>`, `a < b`), but an HTML parser may see one.
        if (start !== undefined && end !== undefined && notes.slice(start, end).includes("<")) at(notes.slice(start, end).replace(/</g, "&lt;"));
        return;
      case "math":
      case "inlineMath":
        if (start !== undefined && end !== undefined && /[<>]/.test(notes.slice(start, end))) at(safeMath(notes.slice(start, end)));
        return;
    }
    for (const child of node.children ?? []) visit(child);
  };
  visit(parser.parse(notes) as MdNode);
  return edits.sort((a, b) => a.start - b.start);
}

/** `text` with `edits` (sorted, not overlapping) applied. */
export function applyEdits(text: string, edits: Edit[]): string {
  let out = "";
  let at = 0;
  for (const e of edits) {
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

/** Notes as safe Markdown (see the module comment). */
export function safeNotes(notes: string): string {
  return applyEdits(notes, safeNotesEdits(notes));
}
