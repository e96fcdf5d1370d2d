/**
 * A small Markdown subset for report notes, parsed to a tree that the UI renders as React elements:
 * no HTML string is ever produced, so raw HTML in the notes shows as text. Supported: headings (#–###),
 * paragraphs, "-"/"*" and "1." lists, fenced code blocks, inline code, **bold**, *italic* / _italic_,
 * and [links](https://…) whose target is http(s) or mailto (anything else stays plain text).
 */

export type Inline =
  | { type: "text"; text: string }
  | { type: "code"; text: string }
  | { type: "strong"; children: Inline[] }
  | { type: "em"; children: Inline[] }
  | { type: "link"; href: string; children: Inline[] };

export type Block =
  | { type: "heading"; level: 1 | 2 | 3; children: Inline[] }
  | { type: "paragraph"; children: Inline[] }
  | { type: "list"; ordered: boolean; items: Inline[][] }
  | { type: "code"; text: string };

/** Only absolute http(s) and mailto targets become links. */
export function safeHref(url: string): string | null {
  const trimmed = url.trim();
  if (/^https?:\/\/[^\s]+$/i.test(trimmed) || /^mailto:[^\s]+$/i.test(trimmed)) return trimmed;
  return null;
}

function pushText(out: Inline[], text: string) {
  if (!text) return;
  const last = out[out.length - 1];
  if (last?.type === "text") last.text += text;
  else out.push({ type: "text", text });
}

export function parseInline(src: string, depth = 0): Inline[] {
  const out: Inline[] = [];
  let i = 0;
  while (i < src.length) {
    const rest = src.slice(i);
    if (rest[0] === "\\" && rest.length > 1 && /[\\`*_[\]()#-]/.test(rest[1]!)) {
      pushText(out, rest[1]!);
      i += 2;
      continue;
    }
    if (rest[0] === "`") {
      const end = rest.indexOf("`", 1);
      if (end > 1) {
        out.push({ type: "code", text: rest.slice(1, end) });
        i += end + 1;
        continue;
      }
    }
    if (depth < 4) {
      const strong = /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/.exec(rest);
      if (strong) {
        out.push({ type: "strong", children: parseInline(strong[2]!, depth + 1) });
        i += strong[0].length;
        continue;
      }
      const em = /^(\*|_)(?=[^\s*_])([\s\S]*?[^\s\\])\1(?![*_])/.exec(rest);
      // "_" inside a word (snake_case names) is not emphasis.
      const intraword = em?.[1] === "_" && (/\w/.test(src[i - 1] ?? "") || /\w/.test(src[i + em[0].length] ?? ""));
      if (em && !intraword) {
        out.push({ type: "em", children: parseInline(em[2]!, depth + 1) });
        i += em[0].length;
        continue;
      }
      const link = /^\[([^\]\n]+)\]\(((?:[^()\s]|\([^()\s]*\))+)\)/.exec(rest);
      if (link) {
        const href = safeHref(link[2]!);
        if (href) out.push({ type: "link", href, children: parseInline(link[1]!, depth + 1) });
        else pushText(out, link[1]!);
        i += link[0].length;
        continue;
      }
    }
    // Plain text up to the next character that could start markup.
    const next = rest.slice(1).search(/[\\`*_[]/);
    const take = next < 0 ? rest.length : next + 1;
    pushText(out, rest.slice(0, take));
    i += take;
  }
  return out;
}

export function parseMarkdown(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) blocks.push({ type: "paragraph", children: parseInline(para.join(" ")) });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*```/.test(line)) {
      flush();
      const body: string[] = [];
      i++;
      while (i < lines.length && !/^\s*```/.test(lines[i]!)) body.push(lines[i++]!);
      blocks.push({ type: "code", text: body.join("\n") });
      continue;
    }
    const heading = /^(#{1,3})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      blocks.push({ type: "heading", level: heading[1]!.length as 1 | 2 | 3, children: parseInline(heading[2]!) });
      continue;
    }
    const bullet = /^\s*([-*]|\d+[.)])\s+(.*)$/.exec(line);
    if (bullet) {
      flush();
      const ordered = /\d/.test(bullet[1]!);
      const items: Inline[][] = [];
      let j = i;
      for (; j < lines.length; j++) {
        const m = /^\s*([-*]|\d+[.)])\s+(.*)$/.exec(lines[j]!);
        if (!m || /\d/.test(m[1]!) !== ordered) break;
        items.push(parseInline(m[2]!));
      }
      blocks.push({ type: "list", ordered, items });
      i = j - 1;
      continue;
    }
    if (line.trim() === "") flush();
    else para.push(line.trim());
  }
  flush();
  return blocks;
}
