/**
 * Python semantics the domain tools use on argument values an agent may have typed arbitrarily: dict
 * membership of a key of any type (unhashable keys raise), attribute access on what may not be a model,
 * `isinstance(x, dict)`, `all(...)` over an iterable, `int(str)`, arithmetic and comparison — each with
 * the exception CPython raises.
 */
import { pyIter, pyLen } from "../../../../lib/python/builtins";
import { pyAdd, pyMul, pySub } from "../../../../lib/python/numbers";
import { PyDict, PyException, pyCompare, pyEq, pyStrRepr, PyTuple, pyTypeName, type PyValue } from "../../../../lib/python/values";
import { isModel, PyDate, PyDateTime, type TModel, type TValue } from "./py";

export const typeError = (m: string) => new PyException("TypeError", m);
export const valueError = (m: string) => new PyException("ValueError", m);
export const keyError = (repr: string) => new PyException("KeyError", repr);
export const attributeError = (m: string) => new PyException("AttributeError", m);

/** Python type name of a domain value. */
export function typeName(v: TValue): string {
  if (v instanceof Map || isModel(v)) return "dict";
  if (v instanceof PyDate) return "date";
  if (v instanceof PyDateTime) return "datetime";
  return pyTypeName(v as PyValue);
}

/** The string key `key in some_dict` looks up: strings can match, other hashables never do, lists and dicts raise. */
export function dictKey(key: TValue): string | undefined {
  if (typeof key === "string") return key;
  if (Array.isArray(key) || key instanceof PyDict || key instanceof Map || isModel(key)) throw typeError(`unhashable type: '${typeName(key)}'`);
  if (key instanceof PyTuple && key.items.some((x) => Array.isArray(x) || x instanceof PyDict)) throw typeError("unhashable type: 'list'");
  return undefined;
}

/** `key in d`. */
export const hasKey = (d: Map<string, unknown>, key: TValue): boolean => {
  const k = dictKey(key);
  return k !== undefined && d.has(k);
};

/** `d[key]` (KeyError with the key's repr when absent). */
export function getKey<T>(d: Map<string, T>, key: TValue, repr: () => string): T {
  const k = dictKey(key);
  if (k === undefined || !d.has(k)) throw keyError(repr());
  return d.get(k)!;
}

/** `obj.name` on a model, or the AttributeError for anything else. */
export function attr(obj: TValue, name: string): TValue {
  if (isModel(obj) && Object.hasOwn(obj, name)) return obj[name]!;
  throw attributeError(`'${typeName(obj)}' object has no attribute '${name}'`);
}

export const isDict = (v: TValue): v is PyDict => v instanceof PyDict;

/** `all(isinstance(x, dict) for x in v)`. */
export function allDicts(v: TValue): boolean {
  return iter(v).every((x) => isDict(x));
}

/** `iter(v)`. */
export function iter(v: TValue): TValue[] {
  if (Array.isArray(v)) return v;
  if (v instanceof Map || isModel(v)) return [...(v instanceof Map ? v.keys() : Object.keys(v))];
  return pyIter(v as PyValue) as TValue[];
}

/** `len(v)`. */
export function len(v: TValue): bigint {
  if (Array.isArray(v)) return BigInt(v.length);
  if (v instanceof Map) return BigInt(v.size);
  if (isModel(v)) throw typeError(`object of type '${typeName(v)}' has no len()`);
  return BigInt(pyLen(v as PyValue));
}

/** The keyword arguments `Model(**d)` passes: a dict's items (keys must be strings). */
export function kwargsOfDict(d: PyDict): Map<string, TValue> {
  const out = new Map<string, TValue>();
  for (const [k, x] of d.entries()) {
    if (typeof k !== "string") throw typeError("keywords must be strings");
    out.set(k, x as TValue);
  }
  return out;
}

const asPy = (v: TValue) => v as PyValue;
export const add = (a: TValue, b: TValue) => pyAdd(asPy(a), asPy(b)) as TValue;
export const sub = (a: TValue, b: TValue) => pySub(asPy(a), asPy(b)) as TValue;
export const mul = (a: TValue, b: TValue) => pyMul(asPy(a), asPy(b)) as TValue;
export const eq = (a: TValue, b: TValue) => pyEq(asPy(a), asPy(b));
export const lt = (a: TValue, b: TValue) => pyCompare(asPy(a), "<", asPy(b));
export const gt = (a: TValue, b: TValue) => pyCompare(asPy(a), ">", asPy(b));
export const le = (a: TValue, b: TValue) => pyCompare(asPy(a), "<=", asPy(b));
export const ge = (a: TValue, b: TValue) => pyCompare(asPy(a), ">=", asPy(b));
export const neg = (a: TValue) => sub(0n, a);

/** `max(a, b)` (the first of equal maxima). */
export const max2 = (a: TValue, b: TValue) => (gt(b, a) ? b : a);

/** `int(text)` for a str (CPython's int() literal rules for base 10). */
export function intOfStr(v: TValue): bigint {
  if (typeof v !== "string") throw typeError(`int() argument must be a string, a bytes-like object or a real number, not '${typeName(v)}'`);
  const s = v.trim();
  if (/^[+-]?\d+(_\d+)*$/.test(s)) return BigInt(s.replace(/_/g, ""));
  throw valueError(`invalid literal for int() with base 10: ${pyStrRepr(v)}`);
}

/** `s[-n:]` of a str or list. */
export function tail(v: TValue, n: number): TValue {
  if (typeof v === "string") return [...v].slice(-n).join("");
  if (Array.isArray(v)) return v.slice(-n);
  throw typeError(`'${typeName(v)}' object is not subscriptable`);
}

/** `x in container` for the strings tools test (`"+1" in s`). */
export function strIn(item: string, container: TValue): boolean {
  if (typeof container !== "string") throw typeError(`argument of type '${typeName(container)}' is not iterable`);
  return container.includes(item);
}

export const models = (v: TValue[]): TModel[] => v as TModel[];
