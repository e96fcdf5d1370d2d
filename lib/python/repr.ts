/**
 * Python `repr()` / `str()` text of JSON-like values, and code-point slicing (Python indexes strings by
 * code point, JS by UTF-16 unit). Used where the EnvACE reference writes `str(value)` or `text[:n]`
 * into a message the policy reads.
 */
import { pyFloatRepr, PyInt } from "./json";

/** Characters `str.isprintable()` rejects: categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs other than space. */
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

/** Python `repr(str)`: single quotes unless the text has a single quote and no double quote. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === quote || ch === "\\") out += "\\" + ch;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (c < 0x20 || c === 0x7f) out += "\\x" + hex(c, 2);
    else if (c < 0x7f || ch === " ") out += ch;
    else if (!NON_PRINTABLE.test(ch)) out += ch;
    else if (c < 0x100) out += "\\x" + hex(c, 2);
    else if (c < 0x10000) out += "\\u" + hex(c, 4);
    else out += "\\U" + hex(c, 8);
  }
  return out + quote;
}

/** Python `repr()` of a value as `json.loads` would have produced it (dict, list, str, int, float, bool, None). */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (value instanceof PyInt) return value.toString();
  if (typeof value === "number") return pyFloatRepr(value);
  if (typeof value === "string") return pyStrRepr(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (value instanceof Map) return `{${[...value].map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(", ")}}`;
  if (typeof value === "object") return `{${Object.entries(value).map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(", ")}}`;
  return String(value);
}

/** Python `str()`: a string is itself, anything else its repr. */
export function pyStr(value: unknown): string {
  return typeof value === "string" ? value : pyRepr(value);
}

/** Python `s[:n]`: the first n code points (a JS slice could cut a surrogate pair and count differently). */
export function pyPrefix(s: string, n: number): string {
  let units = 0;
  let points = 0;
  while (units < s.length && points < n) {
    const c = s.charCodeAt(units);
    const pair = c >= 0xd800 && c <= 0xdbff && units + 1 < s.length && (s.charCodeAt(units + 1) & 0xfc00) === 0xdc00;
    units += pair ? 2 : 1;
    points++;
  }
  return s.slice(0, units);
}

/** Characters for which Python's `str.isspace()` is true (what `str.strip()` with no argument removes). */
const PY_SPACE = "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

/** Python `s.strip()` (JS `trim()` differs: it strips U+FEFF and keeps U+001C–U+001F and U+0085). */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && PY_SPACE.includes(s[start]!)) start++;
  while (end > start && PY_SPACE.includes(s[end - 1]!)) end--;
  return s.slice(start, end);
}
