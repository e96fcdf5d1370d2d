/**
 * Python-compatible JSON text (tau2 retail spec §1, §3; BFCL and the EnvACE reference serialise with json.dumps).
 *
 * - `pyFloatRepr`: Python 3 `repr(float)` text (`198.0`, `1e-05`, `36.12999999999999`).
 * - `round2`: Python `round(x, 2)` on a double (ties to even on exact ties).
 * - `parseOrderedJson`: a JSON parser that keeps object key order (JS objects move integer-like keys
 *   first) by returning every object as a `Map`, and keeps the int/float distinction of literals.
 * - `pyJsonDumps`: `json.dumps` with `", "` / `": "` separators, ASCII escaping (or raw text with
 *   `ensureAscii: false`), Python float text, optionally sorted keys or an indent.
 * - `pyJsonLoads` / `toPlainJson`: `json.loads` → a value `pyJsonDumps` writes back exactly as Python would
 *   re-serialise it (ints stay ints with all their digits, `7.0` stays a float, key order is kept), and
 *   its plain-JS view for code that only reads it.
 */

/**
 * A Python `int`: written without a fractional part. `digits` keeps the exact decimal text of a parsed
 * literal, so integers beyond 2^53 are written back with every digit (Python ints are unbounded).
 */
export class PyInt {
  constructor(
    readonly value: number,
    readonly digits?: string,
  ) {}
  toString(): string {
    return this.digits ?? String(this.value);
  }
}

/** Python `repr()` of a double. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  // toExponential() without an argument gives the shortest round-tripping digits, like Python's repr.
  const [mantissa, expText] = Math.abs(x).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const e = Number(expText) + 1; // x = 0.d1…dn × 10^e
  const n = digits.length;
  if (e > -4 && e <= 16) {
    if (e <= 0) return `${sign}0.${"0".repeat(-e)}${digits}`;
    if (e >= n) return `${sign}${digits}${"0".repeat(e - n)}.0`;
    return `${sign}${digits.slice(0, e)}.${digits.slice(e)}`;
  }
  const exp = e - 1;
  const expAbs = String(Math.abs(exp)).padStart(2, "0");
  return `${sign}${digits[0]}${n > 1 ? "." + digits.slice(1) : ""}e${exp < 0 ? "-" : "+"}${expAbs}`;
}

/** Python's `round(x, 2)` for a double. */
export function round2(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const eighths = x * 8;
  if (Number.isInteger(eighths) && Math.abs(eighths) % 2 === 1) {
    // Exact tie at the third decimal: choose the even hundredth.
    const hundredths = x * 100; // exact: k/8 × 100 = 12.5k
    const lower = Math.floor(hundredths);
    const chosen = lower % 2 === 0 ? lower : lower + 1;
    return chosen / 100;
  }
  return Number(x.toFixed(2));
}

/**
 * Python `json.dumps` string escaping. With ensure_ascii (the default) everything outside printable
 * ASCII is escaped; without it only `"`, `\\` and control characters below U+0020 are (DEL and
 * non-ASCII text, lone surrogates included, are written as they are, like Python's encoder).
 */
export function pyJsonString(s: string, ensureAscii = true): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && (c <= 0x7e || !ensureAscii)) continue;
    out += s.slice(start, i);
    start = i + 1;
    switch (c) {
      case 0x22: out += '\\"'; break;
      case 0x5c: out += "\\\\"; break;
      case 0x0a: out += "\\n"; break;
      case 0x0d: out += "\\r"; break;
      case 0x09: out += "\\t"; break;
      case 0x08: out += "\\b"; break;
      case 0x0c: out += "\\f"; break;
      // UTF-16 code units are exactly Python's surrogate-pair escapes for characters above U+FFFF.
      default: out += "\\u" + c.toString(16).padStart(4, "0");
    }
  }
  return out + s.slice(start) + '"';
}

function floatJson(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  return pyFloatRepr(x);
}

/** Code-point order (Python's str ordering); differs from JS default sort only around surrogates. */
export function compareCodePoints(a: string, b: string): number {
  const la = a.length;
  const lb = b.length;
  for (let i = 0; i < la && i < lb; i++) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(i)!;
    if (ca !== cb) return ca - cb;
    if (ca > 0xffff) i++;
  }
  return la - lb;
}

export interface DumpOptions {
  sortKeys?: boolean;
  /** Pretty-print with this many spaces (Python `indent=`); items then end with "," + newline. */
  indent?: number;
  /** Python `ensure_ascii` (default true): escape every non-ASCII character as `\uXXXX`. */
  ensureAscii?: boolean;
}

/**
 * Serialise a value the way Python `json.dumps` would serialise the equivalent Python value.
 * Numbers are Python floats; `PyInt` is an int; `Map` and plain objects are dicts (in insertion order
 * unless sortKeys); `undefined` object members are skipped.
 */
export function pyJsonDumps(value: unknown, options: DumpOptions = {}): string {
  const parts: string[] = [];
  write(value, parts, options, 0);
  return parts.join("");
}

function entriesOf(value: Map<string, unknown> | Record<string, unknown>, sortKeys: boolean): [string, unknown][] {
  const entries: [string, unknown][] =
    value instanceof Map ? [...value.entries()] : Object.entries(value).filter(([, v]) => v !== undefined);
  if (sortKeys) entries.sort((a, b) => compareCodePoints(a[0], b[0]));
  return entries;
}

function write(value: unknown, out: string[], options: DumpOptions, depth: number): void {
  if (value === null) out.push("null");
  else if (value === true) out.push("true");
  else if (value === false) out.push("false");
  else if (typeof value === "number") out.push(floatJson(value));
  else if (typeof value === "string") out.push(pyJsonString(value, options.ensureAscii ?? true));
  else if (value instanceof PyInt) out.push(value.toString());
  else if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push("[]");
      return;
    }
    const [open, sep, close] = brackets("[", "]", options, depth);
    out.push(open);
    value.forEach((item, i) => {
      if (i > 0) out.push(sep);
      write(item, out, options, depth + 1);
    });
    out.push(close);
  } else if (typeof value === "object") {
    const entries = entriesOf(value as Map<string, unknown> | Record<string, unknown>, options.sortKeys ?? false);
    if (entries.length === 0) {
      out.push("{}");
      return;
    }
    const [open, sep, close] = brackets("{", "}", options, depth);
    out.push(open);
    entries.forEach(([k, v], i) => {
      if (i > 0) out.push(sep);
      out.push(pyJsonString(k, options.ensureAscii ?? true), ": ");
      write(v, out, options, depth + 1);
    });
    out.push(close);
  } else {
    throw new TypeError(`Object of type ${typeof value} is not JSON serializable`);
  }
}

function brackets(open: string, close: string, options: DumpOptions, depth: number): [string, string, string] {
  if (options.indent === undefined) return [open, ", ", close];
  const inner = "\n" + " ".repeat(options.indent * (depth + 1));
  const outer = "\n" + " ".repeat(options.indent * depth);
  return [open + inner, "," + inner, outer + close];
}

/** A parsed JSON value with ordered objects (`Map`) and int literals kept apart as `PyInt`. */
export type OrderedJson = null | boolean | number | PyInt | string | OrderedJson[] | Map<string, OrderedJson>;

export class JsonSyntaxError extends Error {}

const PY_CONSTANTS: [string, number][] = [
  ["NaN", NaN],
  ["Infinity", Infinity],
  ["-Infinity", -Infinity],
];

/**
 * Parse JSON text as Python's `json.loads` does: object key order kept (duplicate keys: the last value
 * at the first key's position), int and float literals kept apart, `NaN` / `Infinity` / `-Infinity`
 * accepted. Throws `JsonSyntaxError` on invalid text.
 */
export function parseOrderedJson(text: string): OrderedJson {
  const parser = new OrderedJsonParser(text);
  const value = parser.value();
  parser.skipWs();
  if (parser.pos !== text.length) parser.fail("trailing characters");
  return value;
}

const NUMBER_PATTERN = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

/**
 * parseOrderedJson's state. A class rather than closures per call: the engine parses every tool call's
 * arguments and every rehearsed result, and under tsx (keepNames) each closure created costs a
 * defineProperty of its name.
 */
class OrderedJsonParser {
  pos = 0;
  constructor(private readonly text: string) {}

  fail(what: string): never {
    const line = this.text.slice(0, this.pos).split("\n").length;
    throw new JsonSyntaxError(`invalid JSON at line ${line} (offset ${this.pos}): ${what}`);
  }

  skipWs(): void {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else return;
    }
  }

  string(): string {
    const text = this.text;
    let pos = this.pos + 1; // opening quote
    let result = "";
    let start = pos;
    for (;;) {
      if (pos >= text.length) {
        this.pos = pos;
        this.fail("unterminated string");
      }
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        result += text.slice(start, pos);
        this.pos = pos + 1;
        return result;
      }
      if (c < 0x20) {
        this.pos = pos;
        this.fail("control character in string");
      }
      if (c === 0x5c) {
        result += text.slice(start, pos);
        const esc = text[pos + 1];
        pos += 2;
        switch (esc) {
          case '"': result += '"'; break;
          case "\\": result += "\\"; break;
          case "/": result += "/"; break;
          case "b": result += "\b"; break;
          case "f": result += "\f"; break;
          case "n": result += "\n"; break;
          case "r": result += "\r"; break;
          case "t": result += "\t"; break;
          case "u": {
            const hex = text.slice(pos, pos + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
              this.pos = pos;
              this.fail("bad \\u escape");
            }
            result += String.fromCharCode(parseInt(hex, 16));
            pos += 4;
            break;
          }
          default:
            this.pos = pos;
            this.fail("bad escape");
        }
        start = pos;
      } else pos++;
    }
  }

  value(): OrderedJson {
    const text = this.text;
    this.skipWs();
    const c = text[this.pos];
    if (c === "{") {
      this.pos++;
      const map = new Map<string, OrderedJson>();
      this.skipWs();
      if (text[this.pos] === "}") {
        this.pos++;
        return map;
      }
      for (;;) {
        this.skipWs();
        if (text[this.pos] !== '"') this.fail("expected a string key");
        const key = this.string();
        this.skipWs();
        if (text[this.pos] !== ":") this.fail("expected ':'");
        this.pos++;
        map.set(key, this.value());
        this.skipWs();
        if (text[this.pos] === ",") this.pos++;
        else if (text[this.pos] === "}") {
          this.pos++;
          return map;
        } else this.fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      this.pos++;
      const arr: OrderedJson[] = [];
      this.skipWs();
      if (text[this.pos] === "]") {
        this.pos++;
        return arr;
      }
      for (;;) {
        arr.push(this.value());
        this.skipWs();
        if (text[this.pos] === ",") this.pos++;
        else if (text[this.pos] === "]") {
          this.pos++;
          return arr;
        } else this.fail("expected ',' or ']'");
      }
    }
    if (c === '"') return this.string();
    if (text.startsWith("true", this.pos)) {
      this.pos += 4;
      return true;
    }
    if (text.startsWith("false", this.pos)) {
      this.pos += 5;
      return false;
    }
    if (text.startsWith("null", this.pos)) {
      this.pos += 4;
      return null;
    }
    // Python's json.loads also accepts these three constants (as floats).
    for (const [word, x] of PY_CONSTANTS) {
      if (text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return x;
      }
    }
    NUMBER_PATTERN.lastIndex = this.pos;
    const m = NUMBER_PATTERN.exec(text);
    if (!m) return this.fail("unexpected character");
    this.pos += m[0].length;
    if (m[1] !== undefined || m[2] !== undefined) return Number(m[0]);
    // An int literal: "-0" is Python's 0; other literals have no leading zeros, so the text is exact.
    const digits = m[0] === "-0" ? "0" : m[0];
    const n = Number(digits);
    return Number.isSafeInteger(n) ? new PyInt(n) : new PyInt(n, digits);
  }
}

/** Python `json.loads`: an alias of `parseOrderedJson` named for the call sites that port Python code. */
export const pyJsonLoads = parseOrderedJson;

/** Plain JS view of a parsed value: Maps become objects, ints become numbers (for code that only reads it). */
export function toPlainJson(value: OrderedJson): unknown {
  if (value instanceof PyInt) return value.value;
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) {
      // defineProperty for "__proto__" only: that key is data, not the prototype (assignment would set
      // the prototype); every other key is a plain assignment, which keeps the object in fast mode.
      if (k === "__proto__") Object.defineProperty(out, k, { value: toPlainJson(v), enumerable: true, writable: true, configurable: true });
      else out[k] = toPlainJson(v);
    }
    return out;
  }
  return value;
}
