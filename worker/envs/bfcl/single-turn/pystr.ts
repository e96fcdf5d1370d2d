/**
 * Python `str` behaviour the checkers and type converters rely on, where JavaScript differs:
 * code-point indexing (`s[1:-1]`), `str.strip()` with Python's whitespace set, `int(s)` / `float(s)`
 * parsing (surrounding whitespace, `_` separators, any Unicode decimal digit), and the pieces of Python's
 * `re` syntax that mean something else in JS (`\d`, `\w`, `\s` are Unicode-wide in Python; `.` excludes
 * only `\n`; `$` also matches before a final `\n`).
 */

/** Python's `\s` / `str.isspace()` characters. */
export const PY_SPACE = "[\\t-\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
/** Python's `\w` for str patterns (`str.isalnum()` or `_`). */
export const PY_WORD = "[\\p{L}\\p{N}_]";
/** Python's `\d` for str patterns (Unicode decimal digits). */
export const PY_DIGIT = "\\p{Nd}";
/** Python's `.` without DOTALL. */
export const PY_DOT = "[^\\n]";
/** Python's `$` without MULTILINE, as a consuming suffix for a whole-string test. */
export const PY_END = "\\n?$";

const spaceRe = new RegExp(`^${PY_SPACE}$`, "u");
const wordRe = new RegExp(`^${PY_WORD}$`, "u");
export const isPySpace = (ch: string): boolean => spaceRe.test(ch);
export const isPyWordChar = (ch: string): boolean => wordRe.test(ch);

/** A JS RegExp from a pattern written with the constants above (always Unicode mode). */
export const pyRe = (source: string, flags = ""): RegExp => new RegExp(source, "u" + flags);

/** Code points of a string (Python's indexing unit). */
export const codePoints = (s: string): string[] => Array.from(s);

/** Python `len(s)`. */
export const pyLen = (s: string): number => codePoints(s).length;

/** Python `s[start:end]` (negative indices count from the end; `undefined` = open end). */
export function pySlice(s: string, start?: number, end?: number): string {
  // Fast path: without surrogates, UTF-16 units are code points.
  if (!/[\ud800-\udfff]/.test(s)) return sliceUnits(s.length, start, end, (a, b) => s.slice(a, b));
  const cps = codePoints(s);
  return sliceUnits(cps.length, start, end, (a, b) => cps.slice(a, b).join(""));
}

function sliceUnits(n: number, start: number | undefined, end: number | undefined, take: (a: number, b: number) => string): string {
  const norm = (i: number | undefined, dflt: number) => (i === undefined ? dflt : i < 0 ? Math.max(0, n + i) : Math.min(i, n));
  const a = norm(start, 0);
  const b = norm(end, n);
  return b <= a ? "" : take(a, b);
}

/** Python `s.strip()` (no argument: Python whitespace) or `s.strip(chars)`. */
export function pyStrip(s: string, chars?: string): string {
  const cps = codePoints(s);
  const drop = chars === undefined ? isPySpace : (ch: string) => codePoints(chars).includes(ch);
  let a = 0;
  let b = cps.length;
  while (a < b && drop(cps[a])) a++;
  while (b > a && drop(cps[b - 1])) b--;
  return cps.slice(a, b).join("");
}

/** The value 0–9 of a Unicode decimal digit (Nd digits come in aligned runs of ten, 0 first). */
function digitValue(ch: string): number {
  let cp = ch.codePointAt(0)!;
  if (cp <= 0x39) return cp - 0x30;
  const nd = /^\p{Nd}$/u;
  let start = cp;
  while (nd.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/** ASCII form of a run of Unicode decimal digits. */
const asciiDigits = (s: string): string => codePoints(s).map((ch) => (/^\p{Nd}$/u.test(ch) ? String(digitValue(ch)) : ch)).join("");

const digitPart = `${PY_DIGIT}(?:_?${PY_DIGIT})*`;
const intLiteral = pyRe(`^[+-]?${digitPart}$`);
const floatLiteral = pyRe(`^[+-]?(?:(?:${digitPart})?\\.${digitPart}|${digitPart}\\.?)(?:[eE][+-]?${digitPart})?$`);
const floatSpecial = /^[+-]?(?:inf|infinity|nan)$/i;

/** Python `int(s)` (base 10); `undefined` where Python raises ValueError. */
export function pyIntFromString(s: string): bigint | undefined {
  const t = pyStrip(s);
  if (!intLiteral.test(t)) return undefined;
  return BigInt(asciiDigits(t.replace(/_/g, "")));
}

/** Python `float(s)`; `undefined` where Python raises ValueError. */
export function pyFloatFromString(s: string): number | undefined {
  const t = pyStrip(s);
  if (floatSpecial.test(t)) {
    const neg = t.startsWith("-");
    if (/nan/i.test(t)) return NaN;
    return neg ? -Infinity : Infinity;
  }
  if (!floatLiteral.test(t)) return undefined;
  return Number(asciiDigits(t.replace(/_/g, "")));
}
