/**
 * Python built-ins and str/list/dict methods over `PyValue`s, raising the exceptions CPython raises
 * (same type, same text) when a value has the wrong type: `in`, `len`, iteration, subscripts,
 * `sum`/`min`/`max`, and the str methods BFCL's back ends call.
 */
import { pyAdd } from "./numbers";
import {
  hashKey,
  indexError,
  intValue,
  isInt,
  keyError,
  noAttribute,
  PyDict,
  pyCompare,
  pyEq,
  PySet,
  pyStr,
  PyTuple,
  pyTypeName,
  typeError,
  valueError,
  type PyValue,
} from "./values";

/** Code points of a str (Python indexes and counts by code point). */
export const codePoints = (s: string): string[] => Array.from(s);

/** `len(v)`. */
export function pyLen(v: PyValue): number {
  if (typeof v === "string") return codePoints(v).length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof PyTuple) return v.items.length;
  if (v instanceof PyDict || v instanceof PySet) return v.size;
  throw typeError(`object of type '${pyTypeName(v)}' has no len()`);
}

/** `iter(v)` as a list of items. */
export function pyIter(v: PyValue): PyValue[] {
  if (typeof v === "string") return codePoints(v);
  if (Array.isArray(v)) return [...v];
  if (v instanceof PyTuple) return [...v.items];
  if (v instanceof PyDict) return v.keys();
  if (v instanceof PySet) return v.items();
  throw typeError(`'${pyTypeName(v)}' object is not iterable`);
}

/** `item in container`. */
export function pyIn(item: PyValue, container: PyValue): boolean {
  if (typeof container === "string") {
    if (typeof item !== "string") throw typeError(`'in <string>' requires string as left operand, not ${pyTypeName(item)}`);
    return container.includes(item);
  }
  if (Array.isArray(container)) return container.some((x) => x === item || pyEq(x, item));
  if (container instanceof PyTuple) return container.items.some((x) => x === item || pyEq(x, item));
  if (container instanceof PyDict || container instanceof PySet) {
    hashKey(item); // TypeError for unhashable items, as Python raises
    return container.has(item);
  }
  throw typeError(`argument of type '${pyTypeName(container)}' is not iterable`);
}

function normalizeIndex(index: PyValue, length: number, what: string): number {
  if (!isInt(index)) throw typeError(`${what} indices must be integers or slices, not ${pyTypeName(index)}`);
  let i = Number(intValue(index));
  if (i < 0) i += length;
  if (i < 0 || i >= length) throw indexError(`${what} index out of range`);
  return i;
}

/** `container[key]`. */
export function pyGetItem(container: PyValue, key: PyValue): PyValue {
  if (container instanceof PyDict) return container.item(key);
  if (Array.isArray(container)) return container[normalizeIndex(key, container.length, "list")];
  if (container instanceof PyTuple) return container.items[normalizeIndex(key, container.items.length, "tuple")];
  if (typeof container === "string") {
    if (!isInt(key)) throw typeError(`string indices must be integers, not '${pyTypeName(key)}'`);
    const cps = codePoints(container);
    return cps[normalizeIndex(key, cps.length, "string")];
  }
  throw typeError(`'${pyTypeName(container)}' object is not subscriptable`);
}

/** `container[key] = value`. */
export function pySetItem(container: PyValue, key: PyValue, value: PyValue): void {
  if (container instanceof PyDict) return container.set(key, value);
  if (Array.isArray(container)) {
    if (!isInt(key)) throw typeError(`list indices must be integers or slices, not ${pyTypeName(key)}`);
    let i = Number(intValue(key));
    if (i < 0) i += container.length;
    if (i < 0 || i >= container.length) throw indexError("list assignment index out of range");
    container[i] = value;
    return;
  }
  throw typeError(`'${pyTypeName(container)}' object does not support item assignment`);
}

/** `del container[key]`. */
export function pyDelItem(container: PyValue, key: PyValue): void {
  if (container instanceof PyDict) {
    if (!container.delete(key)) throw keyError(key);
    return;
  }
  throw typeError(`'${pyTypeName(container)}' object doesn't support item deletion`);
}

/** `sequence[start:]` for a list of items (negative start counts from the end, clamped like Python). */
export function pySliceFrom<T>(items: readonly T[], start: PyValue): T[] {
  if (start === null) return [...items];
  if (!isInt(start)) throw typeError("slice indices must be integers or None or have an __index__ method");
  return items.slice(Number(intValue(start)));
}

/** `d.get(key, default)` on a value that must be a dict. */
export function dictGet(d: PyValue, key: PyValue, fallback: PyValue = null): PyValue {
  if (!(d instanceof PyDict)) throw noAttribute(d, "get");
  hashKey(key);
  return d.has(key) ? d.get(key)! : fallback;
}

/** `sum(iterable)` (start 0, left to right with `+`). */
export function pySum(v: PyValue): PyValue {
  let acc: PyValue = 0n;
  for (const item of pyIter(v)) acc = pyAdd(acc, item);
  return acc;
}

/** `min(iterable)` / `max(iterable)`: the first extreme item, by `<` / `>`. */
export function pyMinMax(v: PyValue, which: "min" | "max"): PyValue {
  const items = pyIter(v);
  if (items.length === 0) throw valueError(`${which}() arg is an empty sequence`);
  let best = items[0];
  for (const item of items.slice(1)) if (pyCompare(item, which === "min" ? "<" : ">", best)) best = item;
  return best;
}

// ---------------------------------------------------------------------------------------------------------------
// str methods

/** Asserts `v` is a str for `v.<method>(…)`, else the AttributeError Python raises. */
export function strSelf(v: PyValue, method: string): string {
  if (typeof v !== "string") throw noAttribute(v, method);
  return v;
}

const LINE_BREAKS = new Set(["\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]);

/** `s.splitlines()`. */
export function splitlines(s: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (!LINE_BREAKS.has(c)) continue;
    out.push(s.slice(start, i));
    if (c === "\r" && s[i + 1] === "\n") i++;
    start = i + 1;
  }
  if (start < s.length) out.push(s.slice(start));
  return out;
}

const PY_SPACE = /[\s\x1c-\x1f\x85]/u;
const isPySpace = (c: string) => PY_SPACE.test(c) && c !== "\ufeff";

/** `s.split()` (no separator: runs of whitespace). */
export function splitWhitespace(s: string): string[] {
  const out: string[] = [];
  let word = "";
  for (const c of s) {
    if (isPySpace(c)) {
      if (word) out.push(word);
      word = "";
    } else word += c;
  }
  if (word) out.push(word);
  return out;
}

/** `s.strip(chars)` / `s.rstrip(chars)` / `s.lstrip(chars)`. */
export function pyStrip(s: string, chars: string | null, side: "both" | "left" | "right"): string {
  const cps = codePoints(s);
  const strip = chars === null ? (c: string) => isPySpace(c) : (c: string) => chars.includes(c);
  let a = 0;
  let b = cps.length;
  if (side !== "right") while (a < b && strip(cps[a])) a++;
  if (side !== "left") while (b > a && strip(cps[b - 1])) b--;
  return cps.slice(a, b).join("");
}

/** `s.startswith(prefix)`. */
export function startswith(s: string, prefix: PyValue): boolean {
  if (typeof prefix === "string") return s.startsWith(prefix);
  if (prefix instanceof PyTuple) {
    return prefix.items.some((p) => {
      if (typeof p !== "string") throw typeError(`tuple for startswith must only contain str, not ${pyTypeName(p)}`);
      return s.startsWith(p);
    });
  }
  throw typeError(`startswith first arg must be str or a tuple of str, not ${pyTypeName(prefix)}`);
}

/** `s.isdigit()` (ASCII digits and other Unicode decimal digits). */
export function isdigit(s: string): boolean {
  return s.length > 0 && /^[\p{Nd}\u00b2\u00b3\u00b9\u2070-\u2079\u2080-\u2089]+$/u.test(s);
}

/** `sep.join(items)`. */
export function pyJoin(sep: string, items: PyValue): string {
  const list = pyIter(items);
  return list
    .map((x, i) => {
      if (typeof x !== "string") throw typeError(`sequence item ${i}: expected str instance, ${pyTypeName(x)} found`);
      return x;
    })
    .join(sep);
}

/** `template.format(**fields)` for templates with `{name}` fields and `{{`/`}}` escapes. */
export function formatNamed(template: string, fields: Record<string, PyValue>): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (match, name: string | undefined) => {
    if (match === "{{") return "{";
    if (match === "}}") return "}";
    if (!Object.hasOwn(fields, name!)) throw keyError(name!);
    return pyStr(fields[name!]);
  });
}

/** `str(n).zfill(width)`. */
export function zfill(s: string, width: number): string {
  const sign = s.startsWith("-") || s.startsWith("+") ? s[0] : "";
  const body = sign ? s.slice(1) : s;
  const pad = Math.max(0, width - codePoints(s).length);
  return sign + "0".repeat(pad) + body;
}

// ---------------------------------------------------------------------------------------------------------------
// list and dict methods

/** `v.append(item)`. */
export function listAppend(v: PyValue, item: PyValue): void {
  if (!Array.isArray(v)) throw noAttribute(v, "append");
  v.push(item);
}

/** `v.extend(items)`. */
export function listExtend(v: PyValue, items: PyValue): void {
  if (!Array.isArray(v)) throw noAttribute(v, "extend");
  v.push(...pyIter(items));
}

/** `v.remove(item)`: removes the first element equal to `item`. */
export function listRemove(v: PyValue, item: PyValue): void {
  if (!Array.isArray(v)) throw noAttribute(v, "remove");
  const i = v.findIndex((x) => x === item || pyEq(x, item));
  if (i < 0) throw valueError("list.remove(x): x not in list");
  v.splice(i, 1);
}

/** `v.copy()` for a list or dict (shallow). */
export function shallowCopy(v: PyValue): PyValue {
  if (Array.isArray(v)) return [...v];
  if (v instanceof PyDict) return v.copy();
  throw noAttribute(v, "copy");
}

/** `v.keys()` / `v.values()` / `v.items()` of a dict. */
export function dictView(v: PyValue, view: "keys" | "values" | "items"): PyValue[] {
  if (!(v instanceof PyDict)) throw noAttribute(v, view);
  if (view === "keys") return v.keys();
  if (view === "values") return v.values();
  return v.entries().map(([k, x]) => new PyTuple([k, x]));
}

/** `list(d.items())[0]` as a pair. */
export function firstItem(v: PyValue): [PyValue, PyValue] {
  const items = dictView(v, "items");
  if (items.length === 0) throw indexError("list index out of range");
  const t = items[0] as PyTuple;
  return [t.items[0], t.items[1]];
}

/** `s.lower()`. */
export function lower(v: PyValue): string {
  return strSelf(v, "lower").toLowerCase();
}
