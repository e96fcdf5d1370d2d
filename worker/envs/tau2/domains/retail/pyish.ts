/**
 * How the original Python tools react to arguments of unexpected JSON types (spec §4.1: no schema
 * validation; a wrong type usually just fails a lookup, otherwise Python raises a TypeError or
 * AttributeError). These helpers reproduce the common cases with CPython's message text, so that any
 * agent-supplied value yields an `Error: …` tool message and never a crash.
 */
import { PyError } from "../../harness/calculate";
import { compareCodePoints } from "../../../../../lib/python/json";

export { PyError };

/** Python type name of a JSON-decoded value. */
export function pyType(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (typeof v === "string") return "str";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (Array.isArray(v)) return "list";
  return "dict";
}

/** `key in some_dict`: strings can match; lists and dicts are unhashable; anything else never matches. */
export function dictKey(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (Array.isArray(v) || (v !== null && typeof v === "object")) throw new PyError(`unhashable type: '${pyType(v)}'`);
  return undefined;
}

/** `s.lower()`. */
export function lower(v: unknown): string {
  if (typeof v !== "string") throw new PyError(`'${pyType(v)}' object has no attribute 'lower'`);
  return v.toLowerCase();
}

/** Python `==` on JSON values (1 == 1.0 and True == 1 hold; containers compare deeply). */
export function pyEquals(a: unknown, b: unknown): boolean {
  const num = (v: unknown) => (typeof v === "boolean" ? Number(v) : v);
  const x = num(a);
  const y = num(b);
  if (typeof x === "number" || typeof y === "number") return x === y;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => pyEquals(v, b[i]));
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && pyEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

/** `for x in v`: lists yield items, strings yield characters, dicts yield keys. */
export function iterate(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (typeof v === "string") return [...v];
  if (v !== null && typeof v === "object") return Object.keys(v);
  throw new PyError(`'${pyType(v)}' object is not iterable`);
}

/** `len(v)`. */
export function len(v: unknown): number {
  if (Array.isArray(v)) return v.length;
  if (typeof v === "string") return [...v].length;
  if (v !== null && typeof v === "object") return Object.keys(v).length;
  throw new PyError(`object of type '${pyType(v)}' has no len()`);
}

/** `container.count(x)`: list element count, or non-overlapping substring count for strings. */
export function count(container: unknown, x: unknown): number {
  if (Array.isArray(container)) return container.filter((v) => pyEquals(v, x)).length;
  if (typeof container === "string") {
    if (typeof x !== "string") throw new PyError(`must be str, not ${pyType(x)}`);
    if (x === "") return [...container].length + 1;
    return container.split(x).length - 1;
  }
  throw new PyError(`'${pyType(container)}' object has no attribute 'count'`);
}

/** `sorted(v)` for the lists stored in the DB (items are strings after the tools' checks). */
export function sortedStrings(v: unknown): string[] {
  const items = iterate(v);
  for (const item of items) {
    if (typeof item !== "string") {
      throw new PyError(`'<' not supported between instances of '${pyType(item)}' and 'str'`);
    }
  }
  return [...(items as string[])].sort(compareCodePoints);
}
