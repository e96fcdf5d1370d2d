/**
 * Python values as the τ² domains (airline, telecom) hold them, and upstream's serialisations of them.
 *
 * A value is a `PyValue` (lib/python/values.ts: `bigint` = int, `number` = float, `PyDict`, `PyTuple`, …)
 * or one of what pydantic models hold:
 * - a **model** is a plain JS object whose keys are its fields in model field order (every field present);
 * - a model's `Dict[str, X]` field is a JS `Map` (insertion order, string keys);
 * - `datetime.date` / `datetime.datetime` are `PyDate` / `PyDateTime` below;
 * - a `str` enum member is its string value (upstream's str-mixin enums compare and serialise as the value).
 *
 * Serialisations:
 * - `toJsonStr`: tau2's `Environment.to_json_str` (a tool's content): a model → `model_dump()`, a plain
 *   dict → its values `_process`ed (numbers and bools become their `str()`, dates `isoformat()`), then
 *   `json.dumps(…, default=str)`; a str is returned as it is.
 * - `dumps`: `json.dumps` of a `model_dump()` (`mode="python"`: dates via `str()`, as `default=str` writes
 *   them; `mode="json"`: `isoformat()`), optionally with sorted keys or an indent.
 * - `dbHash`: sha256 of `json.dumps(model_dump(), sort_keys=True, default=str)`, tau2's `get_dict_hash`.
 */
import { createHash } from "node:crypto";
import { daysInMonth, fromOrdinal, toOrdinal } from "../../../../lib/python/calendar";
import { compareCodePoints, pyFloatRepr, pyJsonString } from "../../../../lib/python/json";
import { intText, PyDict, PyException as PyError, PyObject, PySet, PyTuple, pyStr as pyValueStr, pyRepr as pyValueRepr, valueError, type PyValue } from "../../../../lib/python/values";

export { daysInMonth };
const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** `datetime.date`. */
export class PyDate {
  constructor(
    readonly year: number,
    readonly month: number,
    readonly day: number,
  ) {
    if (month < 1 || month > 12) throw new PyError("ValueError", "month must be in 1..12");
    if (day < 1 || day > daysInMonth(year, month)) throw new PyError("ValueError", "day is out of range for month");
  }
  static fromOrdinal(n: number): PyDate {
    const [y, m, d] = fromOrdinal(n);
    return new PyDate(y, m, d);
  }
  ordinal(): number {
    return toOrdinal(this.year, this.month, this.day);
  }
  /** `self + timedelta(days=n)`. */
  plusDays(n: number): PyDate {
    return PyDate.fromOrdinal(this.ordinal() + n);
  }
  replace(parts: { year?: number; month?: number; day?: number }): PyDate {
    return new PyDate(parts.year ?? this.year, parts.month ?? this.month, parts.day ?? this.day);
  }
  /** `str(date)` = `isoformat()`. */
  str(): string {
    return `${pad(this.year, 4)}-${pad(this.month)}-${pad(this.day)}`;
  }
  iso(): string {
    return this.str();
  }
  compare(other: PyDate): number {
    return this.ordinal() - other.ordinal();
  }
}

/** `datetime.datetime` (naive, whole seconds: all the domains store). */
export class PyDateTime {
  constructor(
    readonly year: number,
    readonly month: number,
    readonly day: number,
    readonly hour = 0,
    readonly minute = 0,
    readonly second = 0,
  ) {
    new PyDate(year, month, day);
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) throw new PyError("ValueError", "time out of range");
  }
  /** `str(datetime)`: a space between date and time. */
  str(): string {
    return `${pad(this.year, 4)}-${pad(this.month)}-${pad(this.day)} ${pad(this.hour)}:${pad(this.minute)}:${pad(this.second)}`;
  }
  /** `isoformat()`: a "T" between date and time. */
  iso(): string {
    return this.str().replace(" ", "T");
  }
}

/** A Python exception raised by ported code: its class and `str(exception)` (lib/python's PyException). */
export { PyException as PyError, valueError } from "../../../../lib/python/values";

/** Any value a domain stores or returns (see the header). */
export type TValue = PyValue | PyDate | PyDateTime | Map<string, TValue> | TModel | TValue[];
export type TModel = { [field: string]: TValue };

export const isModel = (v: unknown): v is TModel =>
  v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype;

/** `str(value)` as an f-string writes it (`{x}`), for the values tool messages interpolate. */
export function pyStr(v: TValue): string {
  if (v instanceof PyDate || v instanceof PyDateTime) return v.str();
  if (v instanceof Map || isModel(v)) return pyRepr(v);
  if (Array.isArray(v)) return pyRepr(v);
  return pyValueStr(v as PyValue);
}

/** `repr(value)` (a model as pydantic's `Name(field=value, …)` is never needed: models print as dicts of their dump). */
export function pyRepr(v: TValue): string {
  if (v instanceof PyDate) return `datetime.date(${v.year}, ${v.month}, ${v.day})`;
  if (v instanceof PyDateTime) return `datetime.datetime(${v.year}, ${v.month}, ${v.day}, ${v.hour}, ${v.minute}${v.second ? `, ${v.second}` : ""})`;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${pyValueRepr(k)}: ${pyRepr(x)}`).join(", ")}}`;
  if (isModel(v)) return `{${Object.entries(v).map(([k, x]) => `${pyValueRepr(k)}: ${pyRepr(x)}`).join(", ")}}`;
  return pyValueRepr(v as PyValue);
}

export interface DumpOptions {
  sortKeys?: boolean;
  /** How dates leave: `str()` (json.dumps's default=str on a python-mode dump) or `isoformat()` (mode="json"). */
  dates?: "str" | "iso";
  indent?: number;
}

function entries(v: Map<string, TValue> | PyDict | TModel, sort: boolean): [string, TValue][] {
  let out: [string, TValue][];
  if (v instanceof Map) out = [...v.entries()];
  else if (v instanceof PyDict) out = v.entries().map(([k, x]) => [jsonKey(k as PyValue), x as TValue]);
  else out = Object.entries(v);
  if (sort) out.sort((a, b) => compareCodePoints(a[0], b[0]));
  return out;
}

function jsonKey(k: PyValue): string {
  if (typeof k === "string") return k;
  if (k === null) return "null";
  if (typeof k === "boolean") return k ? "true" : "false";
  if (typeof k === "bigint") return intText(k);
  if (typeof k === "number") return pyFloatRepr(k);
  throw new PyError("TypeError", `keys must be str, int, float, bool or None, not ${k.constructor.name}`);
}

/** `json.dumps(value, default=str, …)` (ensure_ascii). */
export function dumps(value: TValue, options: DumpOptions = {}): string {
  const out: string[] = [];
  write(value, out, options, 0);
  return out.join("");
}

function write(v: TValue, out: string[], o: DumpOptions, depth: number): void {
  if (v === null) out.push("null");
  else if (v === true) out.push("true");
  else if (v === false) out.push("false");
  else if (typeof v === "bigint") out.push(intText(v));
  else if (typeof v === "number") out.push(Number.isNaN(v) ? "NaN" : v === Infinity ? "Infinity" : v === -Infinity ? "-Infinity" : pyFloatRepr(v));
  else if (typeof v === "string") out.push(pyJsonString(v));
  else if (v instanceof PyDate || v instanceof PyDateTime) out.push(pyJsonString(o.dates === "iso" ? v.iso() : v.str()));
  else if (Array.isArray(v) || v instanceof PyTuple) {
    const items = Array.isArray(v) ? v : (v.items as TValue[]);
    if (items.length === 0) return void out.push("[]");
    const [open, sep, close] = brackets("[", "]", o, depth);
    out.push(open);
    items.forEach((x, i) => {
      if (i > 0) out.push(sep);
      write(x, out, o, depth + 1);
    });
    out.push(close);
  } else if (v instanceof Map || v instanceof PyDict || isModel(v)) {
    const es = entries(v as Map<string, TValue> | PyDict | TModel, o.sortKeys ?? false);
    if (es.length === 0) return void out.push("{}");
    const [open, sep, close] = brackets("{", "}", o, depth);
    out.push(open);
    es.forEach(([k, x], i) => {
      if (i > 0) out.push(sep);
      out.push(pyJsonString(k), ": ");
      write(x, out, o, depth + 1);
    });
    out.push(close);
  } else if (v instanceof PySet || v instanceof PyObject) {
    // default=str: anything else json cannot write is written as its str().
    out.push(pyJsonString(pyValueStr(v as PyValue)));
  } else {
    throw new PyError("TypeError", `Object of type ${(v as object).constructor?.name ?? typeof v} is not JSON serializable`);
  }
}

function brackets(open: string, close: string, o: DumpOptions, depth: number): [string, string, string] {
  if (o.indent === undefined) return [open, ", ", close];
  const inner = "\n" + " ".repeat(o.indent * (depth + 1));
  const outer = "\n" + " ".repeat(o.indent * depth);
  return [open + inner, "," + inner, outer + close];
}

/** sha256 hex of `json.dumps(value, sort_keys=True, default=str)`: tau2's DB hash. */
export function dbHash(value: TValue): string {
  return createHash("sha256").update(dumps(value, { sortKeys: true }), "utf8").digest("hex");
}

/**
 * `Environment.to_json_str(resp)`: a str as it is; anything else through `_process` and
 * `json.dumps(…, default=str)`.
 */
export function toJsonStr(resp: TValue | undefined): string {
  if (typeof resp === "string") return resp;
  return dumps(processValue(resp === undefined ? null : resp));
}

function processValue(v: TValue): TValue {
  if (isModel(v)) return v; // BaseModel → model_dump(): its values are not processed further
  if (typeof v === "string" || v === null) return v;
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "bigint") return intText(v);
  if (typeof v === "number") return pyFloatRepr(v);
  if (Array.isArray(v)) return v.map(processValue);
  if (v instanceof PyTuple) return new PyTuple((v.items as TValue[]).map(processValue) as PyValue[]);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, processValue(x)]));
  if (v instanceof PyDict) return PyDict.of(v.entries().map(([k, x]) => [k, processValue(x as TValue) as PyValue]));
  if (v instanceof PyDate || v instanceof PyDateTime) return v.iso();
  throw valueError(`Unsupported type: <class '${(v as PyObject).pyType ?? typeof v}'>`);
}

/** A deep copy of stored data (`copy.deepcopy` / a fresh `model_validate` of a dump): dates are immutable and shared. */
export function deepCopy<T extends TValue>(v: T): T {
  if (v === null || typeof v !== "object" || v instanceof PyDate || v instanceof PyDateTime) return v;
  if (Array.isArray(v)) return v.map(deepCopy) as T;
  if (v instanceof Map) return new Map([...(v as Map<string, TValue>)].map(([k, x]) => [k, deepCopy(x)])) as T;
  if (v instanceof PyDict) return PyDict.of(v.entries().map(([k, x]) => [k, deepCopy(x as TValue) as PyValue])) as T;
  if (v instanceof PyTuple) return new PyTuple((v.items as TValue[]).map(deepCopy) as PyValue[]) as T;
  if (isModel(v)) {
    const out: TModel = {};
    for (const k of Object.keys(v)) out[k] = deepCopy(v[k]!);
    return out as T;
  }
  return v;
}
