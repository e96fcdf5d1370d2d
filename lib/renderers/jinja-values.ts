/**
 * Values as @huggingface/jinja treats them, for the explicit renderers (qwen3.ts, llama31.ts): its
 * `tojson` filter and its truthiness, over the plain JS values HfChatRenderer passes to a template.
 */

/** What HfChatRenderer passes to a template (its context object). */
export interface TemplateContext {
  messages: Record<string, unknown>[];
  tools?: unknown;
  add_generation_prompt?: boolean;
  enable_thinking?: boolean;
  [k: string]: unknown;
}

/** A template written out as code: used instead of the interpreter when a model's template string is `source`. */
export interface ExplicitTemplate {
  name: string;
  source: string;
  /** The template's text for this context, or null where the interpreter must render it. */
  render(context: TemplateContext): string | null;
}

/** Thrown where an explicit renderer meets an input it does not model: the interpreter renders it. */
export class NotModelled extends Error {}

/**
 * An ExplicitTemplate over `write`, which throws where the interpreter must render: NotModelled, or
 * anything else (a cyclic value's stack overflow) — the interpreter then renders it, or fails its own way.
 */
export function explicitTemplate(name: string, source: string, write: (context: TemplateContext) => string): ExplicitTemplate {
  return {
    name,
    source,
    render(context) {
      try {
        return write(context);
      } catch {
        return null;
      }
    },
  };
}

/**
 * @huggingface/jinja's `tojson` (", " and ": " separators, or "," and newlines with `indent`, its
 * `tojson(indent=n)`; no ASCII escaping, keys in Object.entries order, undefined written as null) over
 * the JS values it converts from.
 */
export function jinjaToJson(v: unknown, indent = 0, depth = 0): string {
  if (v === null || v === undefined) return "null";
  switch (typeof v) {
    case "number":
    case "boolean":
    case "string":
      return JSON.stringify(v);
    case "object": {
      // With an indent: "," between items, each on its own line indented one level deeper, the closing
      // bracket on a line of its own; empty ones stay "[]" / "{}".
      const sep = indent ? "," : ", ";
      const base = indent ? "\n" + " ".repeat(indent * depth) : "";
      const child = indent ? base + " ".repeat(indent) : "";
      if (Array.isArray(v)) {
        if (v.length === 0) return "[]";
        let out = "[" + child;
        for (let i = 0; i < v.length; i++) out += (i > 0 ? sep + child : "") + jinjaToJson(v[i], indent, depth + 1);
        return out + base + "]";
      }
      const entries = Object.entries(v as Record<string, unknown>);
      if (entries.length === 0) return "{}";
      let out = "{";
      for (let i = 0; i < entries.length; i++) out += (i > 0 ? sep : "") + child + JSON.stringify(entries[i][0]) + ": " + jinjaToJson(entries[i][1], indent, depth + 1);
      return out + base + "}";
    }
    default:
      // functions, bigints, symbols: the interpreter has its own rules (or errors) for them
      throw new NotModelled();
  }
}

/** Jinja truthiness of the values this template tests (strings, arrays, objects, null/undefined). */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === "string") return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return Boolean(v);
}

