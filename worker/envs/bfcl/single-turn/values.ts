/**
 * The Python values the single-turn checker works on, with the Python semantics it depends on:
 * `type(x) == T` (exact type, so `bool` is not `int`), `==` across bool/int/float, `in` on lists,
 * dict membership, `repr()` for the error texts, and `json.loads` (objects → dict in key order,
 * integer literals → int, other numbers → float, NaN/Infinity accepted as Python does).
 *
 * Representation (the same convention as `lib/python/values.ts` of the multi-turn port, so the two can be
 * unified): `None` → `null`, `bool` → `boolean`, `int` → `bigint`, `float` → `number`, `str` → `string`,
 * `list` → array, `tuple` → `PyTuple`, `dict` → `PyDict`.
 */
import { pyFloatRepr } from "../../../../lib/python/json";

export type PyValue = null | boolean | bigint | number | string | PyValue[] | PyTuple | PyDict;

export class PyTuple {
  constructor(readonly items: readonly PyValue[]) {}
}

/** An insertion-ordered dict keyed with Python's key equality (`1 == 1.0 == True`). */
export class PyDict {
  private readonly store = new Map<string, [PyValue, PyValue]>();

  static of(entries: Iterable<readonly [PyValue, PyValue]>): PyDict {
    const d = new PyDict();
    for (const [k, v] of entries) d.set(k, v);
    return d;
  }
  static fromObject(obj: Record<string, PyValue>): PyDict {
    return PyDict.of(Object.entries(obj));
  }
  get size(): number {
    return this.store.size;
  }
  has(key: PyValue): boolean {
    const h = hashKey(key);
    return h !== undefined && this.store.has(h);
  }
  get(key: PyValue): PyValue | undefined {
    const h = hashKey(key);
    return h === undefined ? undefined : this.store.get(h)?.[1];
  }
  set(key: PyValue, value: PyValue): void {
    const h = hashKey(key);
    if (h === undefined) throw new TypeError(`unhashable type: '${pyTypeName(key)}'`);
    const existing = this.store.get(h);
    // Python keeps the first key object (and its position) when an equal key is assigned again.
    if (existing) existing[1] = value;
    else this.store.set(h, [key, value]);
  }
  /** `del d[key]` (the other keys keep their order); false when the key was absent. */
  delete(key: PyValue): boolean {
    const h = hashKey(key);
    return h !== undefined && this.store.delete(h);
  }
  keys(): PyValue[] {
    return [...this.store.values()].map(([k]) => k);
  }
  values(): PyValue[] {
    return [...this.store.values()].map(([, v]) => v);
  }
  entries(): [PyValue, PyValue][] {
    return [...this.store.values()].map(([k, v]) => [k, v]);
  }
}

/** Dict/set key text; `undefined` for unhashable values (lists, dicts). */
function hashKey(v: PyValue): string | undefined {
  if (v === null) return "N";
  switch (typeof v) {
    case "boolean":
      return v ? "n:1" : "n:0";
    case "bigint":
      return "n:" + v.toString();
    case "number":
      if (Number.isInteger(v)) return "n:" + BigInt(v).toString();
      return "f:" + pyFloatRepr(v);
    case "string":
      return "s:" + v;
  }
  if (v instanceof PyTuple) {
    const parts = v.items.map(hashKey);
    return parts.some((p) => p === undefined) ? undefined : "t(" + parts.join("\u0000") + ")";
  }
  return undefined;
}

/** `type(v).__name__`. */
export function pyTypeName(v: PyValue): string {
  if (v === null) return "NoneType";
  switch (typeof v) {
    case "boolean":
      return "bool";
    case "bigint":
      return "int";
    case "number":
      return "float";
    case "string":
      return "str";
  }
  if (Array.isArray(v)) return "list";
  if (v instanceof PyTuple) return "tuple";
  return "dict";
}

const isNumeric = (v: PyValue): v is boolean | bigint | number => typeof v === "boolean" || typeof v === "bigint" || typeof v === "number";
const asBigInt = (v: boolean | bigint): bigint => (typeof v === "boolean" ? (v ? 1n : 0n) : v);

/** Python `int == float`, exact (no rounding of the int). */
function intEqualsFloat(i: bigint, f: number): boolean {
  return Number.isInteger(f) && BigInt(f) === i;
}

/** Python `a == b` for the value kinds above. */
export function pyEq(a: PyValue, b: PyValue): boolean {
  if (isNumeric(a) && isNumeric(b)) {
    if (typeof a === "number" && typeof b === "number") return a === b;
    if (typeof a === "number") return intEqualsFloat(asBigInt(b as boolean | bigint), a);
    if (typeof b === "number") return intEqualsFloat(asBigInt(a), b);
    return asBigInt(a) === asBigInt(b as boolean | bigint);
  }
  if (a === null || b === null) return a === b;
  if (typeof a === "string" || typeof b === "string") return a === b;
  if (isNumeric(a) || isNumeric(b)) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => pyEq(x, b[i]));
  }
  if (a instanceof PyTuple || b instanceof PyTuple) {
    if (!(a instanceof PyTuple) || !(b instanceof PyTuple) || a.items.length !== b.items.length) return false;
    return a.items.every((x, i) => pyEq(x, b.items[i]));
  }
  const da = a as PyDict;
  const db = b as PyDict;
  if (da.size !== db.size) return false;
  for (const [k, v] of da.entries()) {
    if (!db.has(k)) return false;
    if (!pyEq(v, db.get(k)!)) return false;
  }
  return true;
}

/** Python `x in list` (identity is not observable for these value kinds, so equality decides). */
export const pyIn = (x: PyValue, list: readonly PyValue[]): boolean => list.some((item) => pyEq(item, x));

/** Python `key in dict` (an unhashable key raises TypeError in Python; reported as not found here). */
export function pyDictHas(d: PyDict, key: PyValue): boolean {
  return d.has(key);
}

// ---------------------------------------------------------------------------------------------------------------
// repr

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python `repr(str)`. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === "\\") out += "\\" + ch;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (cp < 0x20 || cp === 0x7f) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp < 0x7f) out += ch;
    else if (ch !== " " && NON_PRINTABLE.test(ch)) {
      if (cp <= 0xff) out += "\\x" + cp.toString(16).padStart(2, "0");
      else if (cp <= 0xffff) out += "\\u" + cp.toString(16).padStart(4, "0");
      else out += "\\U" + cp.toString(16).padStart(8, "0");
    } else out += ch;
  }
  return out + quote;
}

/** Python `repr(value)`. */
export function pyRepr(v: PyValue): string {
  if (v === null) return "None";
  switch (typeof v) {
    case "boolean":
      return v ? "True" : "False";
    case "bigint":
      return v.toString();
    case "number":
      return pyFloatRepr(v);
    case "string":
      return pyStrRepr(v);
  }
  if (Array.isArray(v)) return "[" + v.map(pyRepr).join(", ") + "]";
  if (v instanceof PyTuple) {
    if (v.items.length === 1) return "(" + pyRepr(v.items[0]) + ",)";
    return "(" + v.items.map(pyRepr).join(", ") + ")";
  }
  return "{" + v.entries().map(([k, x]) => pyRepr(k) + ": " + pyRepr(x)).join(", ") + "}";
}

/** Python `str(value)` (f-string interpolation). */
export const pyStr = (v: PyValue): string => (typeof v === "string" ? v : pyRepr(v));

// ---------------------------------------------------------------------------------------------------------------
// json.loads

export class PyJsonError extends Error {}

/**
 * Python `json.loads(text)`: objects → dict (key order kept, a repeated key keeps its first position and
 * takes the last value), integer literals → int (exact, any size), other numbers → float, and Python's
 * extensions `NaN`, `Infinity`, `-Infinity`.
 */
export function pyJsonLoads(text: string): PyValue {
  let pos = 0;
  const fail = (what: string): never => {
    throw new PyJsonError(`${what}: line ${text.slice(0, pos).split("\n").length} column ${pos - text.lastIndexOf("\n", pos - 1)} (char ${pos})`);
  };
  const ws = () => {
    while (pos < text.length && " \t\n\r".includes(text[pos])) pos++;
  };
  const str = (): string => {
    pos++;
    let out = "";
    for (;;) {
      if (pos >= text.length) fail("Unterminated string starting at");
      const c = text[pos];
      if (c === '"') {
        pos++;
        return out;
      }
      if (c < " ") fail("Invalid control character at");
      if (c !== "\\") {
        out += c;
        pos++;
        continue;
      }
      const e = text[pos + 1];
      pos += 2;
      const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
      if (e in simple) out += simple[e];
      else if (e === "u") {
        const hex = text.slice(pos, pos + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("Invalid \\uXXXX escape");
        out += String.fromCharCode(parseInt(hex, 16));
        pos += 4;
      } else fail("Invalid \\escape");
    }
  };
  const numberPattern = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
  const value = (): PyValue => {
    ws();
    const c = text[pos];
    if (c === "{") {
      pos++;
      const d = new PyDict();
      ws();
      if (text[pos] === "}") {
        pos++;
        return d;
      }
      for (;;) {
        ws();
        if (text[pos] !== '"') fail("Expecting property name enclosed in double quotes");
        const k = str();
        ws();
        if (text[pos] !== ":") fail("Expecting ':' delimiter");
        pos++;
        d.set(k, value());
        ws();
        if (text[pos] === ",") pos++;
        else if (text[pos] === "}") {
          pos++;
          return d;
        } else fail("Expecting ',' delimiter");
      }
    }
    if (c === "[") {
      pos++;
      const out: PyValue[] = [];
      ws();
      if (text[pos] === "]") {
        pos++;
        return out;
      }
      for (;;) {
        out.push(value());
        ws();
        if (text[pos] === ",") pos++;
        else if (text[pos] === "]") {
          pos++;
          return out;
        } else fail("Expecting ',' delimiter");
      }
    }
    if (c === '"') return str();
    for (const [word, v] of [["true", true], ["false", false], ["null", null], ["NaN", NaN], ["Infinity", Infinity], ["-Infinity", -Infinity]] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return v;
      }
    }
    numberPattern.lastIndex = pos;
    const m = numberPattern.exec(text);
    if (!m) return fail("Expecting value");
    pos += m[0].length;
    return m[1] === undefined && m[2] === undefined ? BigInt(m[0]) : Number(m[0]);
  };
  const result = value();
  ws();
  if (pos !== text.length) fail("Extra data");
  return result;
}

/** Python `json.dumps(value)` (default separators, ASCII escapes; tuples as lists). */
export function pyJsonDumps(v: PyValue): string {
  if (v === null) return "null";
  switch (typeof v) {
    case "boolean":
      return v ? "true" : "false";
    case "bigint":
      return v.toString();
    case "number":
      return Number.isNaN(v) ? "NaN" : v === Infinity ? "Infinity" : v === -Infinity ? "-Infinity" : pyFloatRepr(v);
    case "string":
      return JSON.stringify(v).replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  }
  if (Array.isArray(v)) return "[" + v.map(pyJsonDumps).join(", ") + "]";
  if (v instanceof PyTuple) return "[" + v.items.map(pyJsonDumps).join(", ") + "]";
  return "{" + v.entries().map(([k, x]) => pyJsonDumps(typeof k === "string" ? k : pyJsonKey(k)) + ": " + pyJsonDumps(x)).join(", ") + "}";
}

function pyJsonKey(k: PyValue): string {
  if (k === null) return "null";
  if (typeof k === "boolean") return k ? "true" : "false";
  if (typeof k === "bigint" || typeof k === "number") return pyJsonDumps(k);
  throw new TypeError(`keys must be str, int, float, bool or None, not ${pyTypeName(k)}`);
}
