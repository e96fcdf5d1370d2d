/**
 * Python values in TypeScript, for ports that must reproduce Python's text exactly (BFCL's back ends).
 *
 * Representation:
 * - `None` → `null`, `bool` → `boolean`, `int` → `bigint` (arbitrary precision, like Python),
 *   `float` → `number`, `str` → `string`, `list` → a JS array (mutable, shared by reference like Python),
 * - `tuple` → `PyTuple`, `dict` → `PyDict` (insertion order, any hashable key with Python's key equality),
 *   `set` → `PySet`, anything else → a `PyObject` subclass (its own `repr`, equality and truthiness).
 *
 * Python exceptions raised by ported code are `PyException`s; `str(e)` is `e.pyMessage`.
 */
import { parseOrderedJson, pyFloatRepr, PyInt, pyJsonString, type OrderedJson } from "./json";

export type PyValue = null | boolean | bigint | number | string | PyValue[] | PyTuple | PyDict | PySet | PyObject;

/** A Python exception: its class name and `str(exception)`. */
export class PyException extends Error {
  constructor(
    readonly pyType: string,
    readonly pyMessage: string,
  ) {
    super(`${pyType}: ${pyMessage}`);
  }
}

export const typeError = (message: string) => new PyException("TypeError", message);
export const valueError = (message: string) => new PyException("ValueError", message);
export const attributeError = (message: string) => new PyException("AttributeError", message);
export const indexError = (message: string) => new PyException("IndexError", message);
export const zeroDivisionError = (message: string) => new PyException("ZeroDivisionError", message);
export const overflowError = (message: string) => new PyException("OverflowError", message);
export const nameError = (name: string) => new PyException("NameError", `name '${name}' is not defined`);
/** `KeyError(key)`: its str() is the repr of the key. */
export const keyError = (key: PyValue) => new PyException("KeyError", pyRepr(key));
/** The AttributeError Python raises for `value.name` when the type lacks it. */
export const noAttribute = (value: PyValue, name: string) => attributeError(`'${pyTypeName(value)}' object has no attribute '${name}'`);

/** Base class for Python objects that are not built-in containers or scalars. */
export abstract class PyObject {
  abstract readonly pyType: string;
  abstract repr(): string;
  /** `str(obj)`; defaults to `repr`, like `object.__str__`. */
  str(): string {
    return this.repr();
  }
  /** `obj == other`; `undefined` means NotImplemented (then Python falls back to identity). */
  eq(_other: PyValue): boolean | undefined {
    return undefined;
  }
  truthy(): boolean {
    return true;
  }
  /** Key text for dict/set membership; objects without one are unhashable (classes defining `__eq__` only). */
  hashKey(): string | undefined {
    return undefined;
  }
  /** Ordering (`<` etc.): negative, zero, positive, or `undefined` when the types do not compare. */
  compare(_other: PyValue): number | undefined {
    return undefined;
  }
  /** `copy.deepcopy` (memo carries shared references). */
  deepCopy(_memo: Map<unknown, unknown>): PyObject {
    return this;
  }
}

/** Python's `Ellipsis` (`...`), which appears in data modules such as BFCL's long_context.py. */
class EllipsisType extends PyObject {
  readonly pyType = "ellipsis";
  repr(): string {
    return "Ellipsis";
  }
  hashKey(): string {
    return "Ellipsis";
  }
}
export const PyEllipsis: PyObject = new EllipsisType();

export class PyTuple {
  constructor(readonly items: readonly PyValue[]) {}
}

/** Python dict: insertion-ordered, keyed by Python key equality (`1 == 1.0 == True`). */
export class PyDict {
  private readonly store = new Map<string, [PyValue, PyValue]>();

  static of(entries: Iterable<readonly [PyValue, PyValue]>): PyDict {
    const d = new PyDict();
    for (const [k, v] of entries) d.set(k, v);
    return d;
  }

  /** A dict from a JS object literal whose keys are strings (in the literal's order). */
  static fromObject(obj: Record<string, PyValue>): PyDict {
    return PyDict.of(Object.entries(obj));
  }

  get size(): number {
    return this.store.size;
  }
  has(key: PyValue): boolean {
    return this.store.has(hashKey(key));
  }
  get(key: PyValue): PyValue | undefined {
    return this.store.get(hashKey(key))?.[1];
  }
  /** `d[key]`, raising KeyError like Python. */
  item(key: PyValue): PyValue {
    const found = this.store.get(hashKey(key));
    if (!found) throw keyError(key);
    return found[1];
  }
  set(key: PyValue, value: PyValue): void {
    const h = hashKey(key);
    const existing = this.store.get(h);
    // Python keeps the first key object when an equal key is assigned again.
    if (existing) existing[1] = value;
    else this.store.set(h, [key, value]);
  }
  delete(key: PyValue): boolean {
    return this.store.delete(hashKey(key));
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
  copy(): PyDict {
    return PyDict.of(this.entries());
  }
}

/** Python set. Iteration follows insertion order (CPython's hash order is not reproduced; see README). */
export class PySet {
  private readonly store = new Map<string, PyValue>();
  static of(items: Iterable<PyValue>): PySet {
    const s = new PySet();
    for (const item of items) s.add(item);
    return s;
  }
  get size(): number {
    return this.store.size;
  }
  has(item: PyValue): boolean {
    return this.store.has(hashKey(item));
  }
  add(item: PyValue): void {
    const h = hashKey(item);
    if (!this.store.has(h)) this.store.set(h, item);
  }
  delete(item: PyValue): boolean {
    return this.store.delete(hashKey(item));
  }
  items(): PyValue[] {
    return [...this.store.values()];
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Types

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
  if (v instanceof PyDict) return "dict";
  if (v instanceof PySet) return "set";
  return (v as PyObject).pyType;
}

/** `isinstance(v, int)` (bool is an int in Python). */
export const isInt = (v: PyValue): v is bigint | boolean => typeof v === "bigint" || typeof v === "boolean";
/** `isinstance(v, (int, float))`. */
export const isNumber = (v: PyValue): v is bigint | boolean | number => isInt(v) || typeof v === "number";
export const isList = (v: PyValue): v is PyValue[] => Array.isArray(v);

/** The int value of an int or bool. */
export const intValue = (v: bigint | boolean): bigint => (typeof v === "boolean" ? (v ? 1n : 0n) : v);

// ---------------------------------------------------------------------------------------------------------------
// Hashing (dict keys, set members)

export function hashKey(v: PyValue): string {
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
  if (v instanceof PyTuple) return "t(" + v.items.map(hashKey).join("\u0000") + ")";
  if (v instanceof PyObject) {
    const k = v.hashKey();
    if (k !== undefined) return k;
  }
  throw typeError(`unhashable type: '${pyTypeName(v)}'`);
}

// ---------------------------------------------------------------------------------------------------------------
// Truthiness and equality

export function pyTruthy(v: PyValue): boolean {
  if (v === null) return false;
  switch (typeof v) {
    case "boolean":
      return v;
    case "bigint":
      return v !== 0n;
    case "number":
      return v !== 0;
    case "string":
      return v.length > 0;
  }
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PyTuple) return v.items.length > 0;
  if (v instanceof PyDict || v instanceof PySet) return v.size > 0;
  return v.truthy();
}

/** Exact comparison of a Python int with a float (no rounding of the int), as Python does. */
export function compareIntFloat(i: bigint, f: number): number | undefined {
  if (Number.isNaN(f)) return undefined;
  if (f === Infinity) return -1;
  if (f === -Infinity) return 1;
  const fi = Math.floor(f);
  const bi = BigInt(fi);
  if (i < bi) return -1;
  if (i > bi) return 1;
  return f > fi ? -1 : 0;
}

/** Numeric ordering of two Python numbers; `undefined` when either is NaN. */
export function compareNumbers(a: bigint | boolean | number, b: bigint | boolean | number): number | undefined {
  if (typeof a === "number" && typeof b === "number") {
    if (Number.isNaN(a) || Number.isNaN(b)) return undefined;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === "number") {
    const c = compareIntFloat(intValue(b as bigint | boolean), a);
    return c === undefined ? undefined : -c;
  }
  if (typeof b === "number") return compareIntFloat(intValue(a), b);
  const x = intValue(a);
  const y = intValue(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

let eqDepth = 0;

/** Python `a == b` (RecursionError, as CPython, for self-referential structures). */
export function pyEq(a: PyValue, b: PyValue): boolean {
  if (eqDepth > 900) throw new PyException("RecursionError", "maximum recursion depth exceeded in comparison");
  eqDepth++;
  try {
    return eqInner(a, b);
  } finally {
    eqDepth--;
  }
}

function eqInner(a: PyValue, b: PyValue): boolean {
  if (isNumber(a) && isNumber(b)) return compareNumbers(a, b) === 0;
  if (a === null || b === null) return a === b;
  if (typeof a === "string" || typeof b === "string") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => x === b[i] || pyEq(x, b[i]));
  }
  if (a instanceof PyTuple || b instanceof PyTuple) {
    if (!(a instanceof PyTuple) || !(b instanceof PyTuple) || a.items.length !== b.items.length) return false;
    return a.items.every((x, i) => x === b.items[i] || pyEq(x, b.items[i]));
  }
  if (a instanceof PyDict || b instanceof PyDict) {
    if (!(a instanceof PyDict) || !(b instanceof PyDict) || a.size !== b.size) return false;
    for (const [k, v] of a.entries()) {
      if (!b.has(k)) return false;
      const w = b.get(k)!;
      if (v !== w && !pyEq(v, w)) return false;
    }
    return true;
  }
  if (a instanceof PySet || b instanceof PySet) {
    if (!(a instanceof PySet) || !(b instanceof PySet) || a.size !== b.size) return false;
    return a.items().every((x) => b.has(x));
  }
  if (a instanceof PyObject) {
    const r = a.eq(b);
    if (r !== undefined) return r;
  }
  if (b instanceof PyObject) {
    const r = b.eq(a);
    if (r !== undefined) return r;
  }
  return a === b;
}

/** Python `a <op> b` ordering for `<`, `<=`, `>`, `>=`; TypeError text as Python's. */
export function pyCompare(a: PyValue, op: "<" | "<=" | ">" | ">=", b: PyValue): boolean {
  const c = orderOf(a, b, op);
  if (c === undefined) return false; // NaN
  switch (op) {
    case "<":
      return c < 0;
    case "<=":
      return c <= 0;
    case ">":
      return c > 0;
    case ">=":
      return c >= 0;
  }
}

/** Ordering of two values, or undefined for NaN; raises TypeError for types that do not compare. */
function orderOf(a: PyValue, b: PyValue, op: string): number | undefined {
  if (isNumber(a) && isNumber(b)) return compareNumbers(a, b);
  if (typeof a === "string" && typeof b === "string") return compareStrings(a, b);
  // Sequences compare their first differing items with the same operator (so errors name the items' types).
  if (Array.isArray(a) && Array.isArray(b)) return compareSequences(a, b, op);
  if (a instanceof PyTuple && b instanceof PyTuple) return compareSequences(a.items, b.items, op);
  if (a instanceof PyObject) {
    const c = a.compare(b);
    if (c !== undefined) return c;
  }
  if (b instanceof PyObject) {
    const c = b.compare(a);
    if (c !== undefined) return -c;
  }
  throw typeError(`'${op}' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
}

function compareSequences(a: readonly PyValue[], b: readonly PyValue[], op: string): number | undefined {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i] || pyEq(a[i], b[i])) continue;
    return orderOf(a[i], b[i], op);
  }
  return a.length - b.length;
}

/** Python str ordering: by code point. */
export function compareStrings(a: string, b: string): number {
  const la = a.length;
  const lb = b.length;
  let i = 0;
  let j = 0;
  while (i < la && j < lb) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca - cb;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return i < la ? 1 : j < lb ? -1 : 0;
}

/** Python `sorted()` of values that compare (stable, TypeError when they do not). */
export function pySorted(items: readonly PyValue[]): PyValue[] {
  return [...items].sort((x, y) => {
    if (pyCompare(y, "<", x)) return 1;
    if (pyCompare(x, "<", y)) return -1;
    return 0;
  });
}

// ---------------------------------------------------------------------------------------------------------------
// repr / str

/** CPython ≥ 3.11 refuses int → str conversions of more than 4300 digits (sys.int_info.default_max_str_digits). */
export const INT_MAX_STR_DIGITS = 4300;

/** `str(int)`, with CPython's digit limit. */
export function intText(n: bigint): string {
  const text = n.toString();
  if (text.length - (n < 0n ? 1 : 0) > INT_MAX_STR_DIGITS) {
    throw valueError(`Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit`);
  }
  return text;
}

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python `repr(str)`. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (let i = 0; i < s.length; i++) {
    const cp = s.codePointAt(i)!;
    const ch = cp > 0xffff ? s.slice(i, i + 2) : s[i];
    if (cp > 0xffff) i++;
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

/** Containers whose repr is in progress (CPython's Py_ReprEnter): a nested repr of one prints `[...]`/`{...}`. */
const reprActive = new Set<object>();

/** Python `repr(value)`. */
export function pyRepr(v: PyValue): string {
  return reprInner(v, reprActive);
}

function reprInner(v: PyValue, active: Set<object>): string {
  if (v === null) return "None";
  switch (typeof v) {
    case "boolean":
      return v ? "True" : "False";
    case "bigint":
      return intText(v);
    case "number":
      return pyFloatRepr(v);
    case "string":
      return pyStrRepr(v);
  }
  if (v instanceof PyObject) return v.repr();
  if (active.has(v)) return Array.isArray(v) ? "[...]" : v instanceof PyTuple ? "(...)" : "{...}";
  active.add(v);
  try {
    if (Array.isArray(v)) return "[" + v.map((x) => reprInner(x, active)).join(", ") + "]";
    if (v instanceof PyTuple) {
      if (v.items.length === 1) return "(" + reprInner(v.items[0], active) + ",)";
      return "(" + v.items.map((x) => reprInner(x, active)).join(", ") + ")";
    }
    if (v instanceof PyDict) return "{" + v.entries().map(([k, x]) => reprInner(k, active) + ": " + reprInner(x, active)).join(", ") + "}";
    if (v.size === 0) return "set()";
    return "{" + v.items().map((x) => reprInner(x, active)).join(", ") + "}";
  } finally {
    active.delete(v);
  }
}

/** Python `str(value)`. */
export function pyStr(v: PyValue): string {
  if (typeof v === "string") return v;
  if (v instanceof PyObject) return v.str();
  return pyRepr(v);
}

// ---------------------------------------------------------------------------------------------------------------
// json.dumps

/**
 * Python `json.dumps(value)` with default settings. Throws the `PyException` Python would raise
 * (TypeError for values that are not serialisable, ValueError for circular references).
 */
export function pyJsonDumpsValue(v: PyValue): string {
  const parts: string[] = [];
  dumpInner(v, parts, new Set());
  return parts.join("");
}

function jsonFloat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  return pyFloatRepr(x);
}

function jsonKey(k: PyValue): string {
  if (typeof k === "string") return k;
  if (k === null) return "null";
  if (typeof k === "boolean") return k ? "true" : "false";
  if (typeof k === "bigint") return intText(k);
  if (typeof k === "number") return jsonFloat(k);
  throw typeError(`keys must be str, int, float, bool or None, not ${pyTypeName(k)}`);
}

function dumpInner(v: PyValue, out: string[], active: Set<object>): void {
  if (v === null) return void out.push("null");
  switch (typeof v) {
    case "boolean":
      return void out.push(v ? "true" : "false");
    case "bigint":
      return void out.push(intText(v));
    case "number":
      return void out.push(jsonFloat(v));
    case "string":
      return void out.push(pyJsonString(v));
  }
  if (Array.isArray(v) || v instanceof PyTuple || v instanceof PyDict) {
    if (active.has(v)) throw valueError("Circular reference detected");
    active.add(v);
    if (v instanceof PyDict) {
      out.push("{");
      v.entries().forEach(([k, x], i) => {
        if (i > 0) out.push(", ");
        out.push(pyJsonString(jsonKey(k)), ": ");
        dumpInner(x, out, active);
      });
      out.push("}");
    } else {
      const items = Array.isArray(v) ? v : v.items;
      out.push("[");
      items.forEach((x, i) => {
        if (i > 0) out.push(", ");
        dumpInner(x, out, active);
      });
      out.push("]");
    }
    active.delete(v);
    return;
  }
  throw typeError(`Object of type ${pyTypeName(v)} is not JSON serializable`);
}

// ---------------------------------------------------------------------------------------------------------------
// Copies

/** `copy.deepcopy` (shared references stay shared inside the copy). */
export function pyDeepCopy<T extends PyValue>(v: T, memo: Map<unknown, unknown> = new Map()): T {
  if (v === null || typeof v !== "object") return v;
  const seen = memo.get(v);
  if (seen !== undefined) return seen as T;
  if (Array.isArray(v)) {
    const copy: PyValue[] = [];
    memo.set(v, copy);
    for (const x of v) copy.push(pyDeepCopy(x, memo));
    return copy as T;
  }
  if (v instanceof PyTuple) {
    const copy = new PyTuple(v.items.map((x) => pyDeepCopy(x, memo)));
    memo.set(v, copy);
    return copy as T;
  }
  if (v instanceof PyDict) {
    const copy = new PyDict();
    memo.set(v, copy);
    for (const [k, x] of v.entries()) copy.set(pyDeepCopy(k, memo), pyDeepCopy(x, memo));
    return copy as T;
  }
  if (v instanceof PySet) {
    const copy = PySet.of(v.items().map((x) => pyDeepCopy(x, memo)));
    memo.set(v, copy);
    return copy as T;
  }
  return (v as PyObject).deepCopy(memo) as T;
}

// ---------------------------------------------------------------------------------------------------------------
// JSON input

/**
 * A Python value from JSON text the way `json.loads` builds it: objects → dict (key order kept),
 * integer literals → int, other numbers → float.
 */
export function pyFromJsonText(text: string): PyValue {
  return fromOrdered(parseOrderedJson(text));
}

/** Converts `parseOrderedJson` output (Map objects, `PyInt` ints) to Python values. */
export function fromOrdered(v: OrderedJson): PyValue {
  if (v === null || typeof v === "boolean" || typeof v === "string" || typeof v === "number") return v;
  if (v instanceof PyInt) return BigInt(v.value);
  if (Array.isArray(v)) return v.map(fromOrdered);
  const d = new PyDict();
  for (const [k, x] of v) d.set(k, fromOrdered(x));
  return d;
}

/**
 * A Python value from an already-parsed JS JSON value (`JSON.parse`). Integral numbers become ints;
 * use `pyFromJsonText` when the int/float distinction of the text (`1` vs `1.0`) or key order matters.
 */
export function fromPlainJson(v: unknown): PyValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(fromPlainJson);
  if (typeof v === "object") {
    const d = new PyDict();
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) d.set(k, fromPlainJson(x));
    return d;
  }
  throw new TypeError(`not a JSON value: ${typeof v}`);
}
