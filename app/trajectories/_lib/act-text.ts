/**
 * Split a model output into display segments: <think> blocks, <tool_call> blocks, <execution_result>
 * blocks and the plain text between them. Pure string work; the result is rendered as text, never HTML.
 * An unclosed tag is left in the surrounding text (that is what the parser saw, too).
 */
export type Segment =
  | { kind: "think"; text: string }
  | { kind: "text"; text: string }
  | { kind: "tool_call"; text: string; json: unknown | undefined }
  | { kind: "execution_result"; text: string; json: unknown | undefined };

const TAGS = ["think", "tool_call", "execution_result"] as const;

function tryJson(text: string): unknown | undefined {
  try {
    return JSON.parse(text.trim());
  } catch {
    return undefined;
  }
}

export function splitOutput(raw: string): Segment[] {
  const out: Segment[] = [];
  const pushText = (t: string) => {
    if (t.trim() !== "") out.push({ kind: "text", text: t.trim() });
  };
  let pos = 0;
  let textStart = 0;
  while (pos < raw.length) {
    const open = raw.indexOf("<", pos);
    if (open < 0) break;
    const tag = TAGS.find((t) => raw.startsWith(`<${t}>`, open));
    if (!tag) {
      pos = open + 1;
      continue;
    }
    const bodyStart = open + tag.length + 2;
    const close = raw.indexOf(`</${tag}>`, bodyStart);
    if (close < 0) {
      pos = bodyStart;
      continue;
    }
    pushText(raw.slice(textStart, open));
    const body = raw.slice(bodyStart, close);
    if (tag === "think") out.push({ kind: "think", text: body.trim() });
    else out.push({ kind: tag, text: body.trim(), json: tryJson(body) });
    pos = close + tag.length + 3;
    textStart = pos;
  }
  pushText(raw.slice(textStart));
  return out;
}

/** Pretty JSON of a value, or the text itself when it is not JSON. */
export function prettyJson(text: string | null | undefined): string {
  if (text == null) return "";
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
