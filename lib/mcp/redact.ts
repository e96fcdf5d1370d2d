/**
 * A registered MCP server's own secrets (its secret environment values and every HTTP header value) are
 * taken out of every text that leaves an MCP session: error messages with the server's stderr or its
 * JSON-RPC error text, tool results, tool descriptions, what the server calls itself. Those texts are
 * stored (health detail, run errors and logs, trajectories) and shown to every signed-in user, so a
 * server that prints "invalid API key sk-…" must not publish its key.
 *
 * A secret is replaced as written and in the encodings a program commonly prints it in: URL-encoded
 * (both %XX cases, `+` for spaces), JSON-escaped (once and twice), base64 (standard and URL-safe, with
 * or without padding, at any alignment inside a longer base64 text such as `Basic <user:secret>`), and
 * hex. Pure.
 */

/** Secrets shorter than this are not replaced: they would blank out ordinary text and protect nothing. */
export const MIN_SECRET_LENGTH = 4;

export interface NamedSecret {
  /** What the replacement says: `API_KEY` (an environment variable) or `header Authorization`. */
  label: string;
  value: string;
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

const urlSafe = (b64: string) => b64.replace(/\+/g, "-").replace(/\//g, "_");

/**
 * The base64 texts that stand for `value` wherever it sits in a longer base64 text: for each of the
 * three byte alignments, the characters that depend on the secret's bytes alone.
 */
function base64Cores(value: string): string[] {
  const bytes = new TextEncoder().encode(value);
  const out: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const padded = new Uint8Array(shift + bytes.length);
    padded.set(bytes, shift);
    const full = base64(padded).replace(/=+$/, "");
    // Characters before `lead` mix in the padding bytes; those after `end` mix in whatever follows.
    const lead = shift === 0 ? 0 : Math.ceil((shift * 8) / 6);
    const end = Math.floor(((shift + bytes.length) * 8) / 6);
    const core = full.slice(lead, end);
    if (core.length >= MIN_SECRET_LENGTH) out.push(core, urlSafe(core));
  }
  // The whole value encoded on its own, with its padding.
  const whole = base64(bytes);
  out.push(whole, urlSafe(whole));
  return out;
}

function hex(value: string): string {
  return [...new TextEncoder().encode(value)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Every spelling of `value` this module replaces, longest first. */
export function secretForms(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const uri = encodeURIComponent(value);
  const forms = new Set<string>([
    value,
    json,
    JSON.stringify(json).slice(1, -1),
    uri,
    uri.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    uri.replace(/%20/g, "+"),
    encodeURI(value),
    ...base64Cores(value),
    hex(value),
    hex(value).toUpperCase(),
  ]);
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

export type Redactor = (text: string) => string;

/** A function that replaces every form of every secret with `[secret <label>]`. */
export function redactorFor(secrets: NamedSecret[]): Redactor {
  const pairs = secrets
    .filter((s) => s.value.length >= MIN_SECRET_LENGTH)
    .flatMap((s) => secretForms(s.value).map((form) => ({ form, label: s.label })))
    .sort((a, b) => b.form.length - a.form.length);
  if (pairs.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const { form, label } of pairs) if (out.includes(form)) out = out.split(form).join(`[secret ${label}]`);
    return out;
  };
}

/** Every string inside `value` (objects and arrays, at any depth) through `redact`; other values as they are. */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact)) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [redact(k), redactDeep(v, redact)])) as T;
  }
  return value;
}
