/**
 * The part of pydantic 2.10 (lax mode, Python input) the τ² domains rely on: validating a dict (or a
 * loaded data file) into a model the way `Model(**kwargs)` / `Model.model_validate(data)` does —
 * int → float for float fields, a float without fractional part → int, numeric strings, str → enum
 * member, missing / extra fields — and the ValidationError text pydantic prints. Models are plain
 * objects with their fields in model order (harness/py.ts).
 *
 * The texts follow pydantic's format (`1 validation error for Passenger\ndob\n  Field required [type=missing, …]`);
 * they are tool messages an agent reads, never scored.
 */
import { pyFloatRepr } from "../../../../lib/python/json";
import { PyDict, PyTuple, pyRepr as pyValueRepr, type PyValue } from "../../../../lib/python/values";
import { isModel, PyDate, PyDateTime, PyError, pyRepr, type TModel, type TValue } from "./py";

export type FieldType =
  | { kind: "str" }
  | { kind: "int" }
  | { kind: "float" }
  | { kind: "bool" }
  | { kind: "any" }
  | { kind: "date" }
  | { kind: "datetime" }
  | { kind: "literal"; values: readonly string[] }
  | { kind: "enum"; name: string; values: readonly string[] }
  | { kind: "list"; item: FieldType }
  | { kind: "dict"; value: FieldType; key?: FieldType }
  | { kind: "optional"; inner: FieldType }
  | { kind: "union"; options: readonly FieldType[] }
  | { kind: "model"; model: ModelSpec };

export interface FieldSpec {
  name: string;
  type: FieldType;
  /** Absent: required. A function: pydantic's default_factory (or a fresh copy of a default). */
  default?: () => TValue;
  /** `validate_default=True`: the default goes through the field's validator. */
  validateDefault?: boolean;
}

export interface ModelSpec {
  name: string;
  fields: readonly FieldSpec[];
  /** BaseModelNoExtra: `extra="forbid"`. */
  forbidExtra?: boolean;
}

export const t = {
  str: { kind: "str" } as FieldType,
  int: { kind: "int" } as FieldType,
  float: { kind: "float" } as FieldType,
  bool: { kind: "bool" } as FieldType,
  any: { kind: "any" } as FieldType,
  date: { kind: "date" } as FieldType,
  datetime: { kind: "datetime" } as FieldType,
  literal: (...values: string[]): FieldType => ({ kind: "literal", values }),
  enumOf: (name: string, values: readonly string[]): FieldType => ({ kind: "enum", name, values }),
  list: (item: FieldType): FieldType => ({ kind: "list", item }),
  dict: (value: FieldType, key?: FieldType): FieldType => ({ kind: "dict", value, ...(key ? { key } : {}) }),
  optional: (inner: FieldType): FieldType => ({ kind: "optional", inner }),
  union: (...options: FieldType[]): FieldType => ({ kind: "union", options }),
  model: (model: ModelSpec): FieldType => ({ kind: "model", model }),
};

export interface Issue {
  loc: (string | number)[];
  type: string;
  msg: string;
  input: TValue;
}

/** pydantic's ValidationError: `str()` is the whole multi-line text. */
export class ValidationError extends PyError {
  constructor(
    readonly title: string,
    readonly issues: Issue[],
  ) {
    super("ValidationError", formatIssues(title, issues));
  }
}

const PYDANTIC_URL = "https://errors.pydantic.dev/2.10/v/";

function typeName(v: TValue): string {
  if (v === null) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "float";
  if (typeof v === "string") return "str";
  if (Array.isArray(v)) return "list";
  if (v instanceof PyTuple) return "tuple";
  if (v instanceof PyDict || v instanceof Map) return "dict";
  if (v instanceof PyDate) return "date";
  if (v instanceof PyDateTime) return "datetime";
  if (isModel(v)) return "dict";
  return (v as { pyType?: string }).pyType ?? "object";
}

/** pydantic-core truncates an input's repr beyond 50 characters to its first 25 and last 24. */
function inputRepr(v: TValue): string {
  const r = pyRepr(v);
  const chars = [...r];
  return chars.length > 50 ? `${chars.slice(0, 25).join("")}...${chars.slice(-24).join("")}` : r;
}

export function formatIssues(title: string, issues: Issue[]): string {
  const lines = [`${issues.length} validation error${issues.length === 1 ? "" : "s"} for ${title}`];
  for (const i of issues) {
    if (i.loc.length) lines.push(i.loc.join("."));
    lines.push(`  ${i.msg} [type=${i.type}, input_value=${inputRepr(i.input)}, input_type=${typeName(i.input)}]`);
    lines.push(`    For further information visit ${PYDANTIC_URL}${i.type}`);
  }
  return lines.join("\n");
}

class Fail {
  constructor(readonly issues: Issue[]) {}
}

const issue = (loc: (string | number)[], type: string, msg: string, input: TValue) => new Fail([{ loc, type, msg, input }]);

/** A dict's entries with string keys (model input), or undefined when the value is not a mapping. */
function mapping(v: TValue): [string, TValue][] | undefined {
  if (v instanceof PyDict) return v.entries().map(([k, x]) => [typeof k === "string" ? k : pyValueRepr(k as PyValue), x as TValue]);
  if (v instanceof Map) return [...v.entries()];
  if (isModel(v)) return Object.entries(v);
  return undefined;
}

const FLOAT_TEXT = /^\s*[+-]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$|^\s*[+-]?(inf|infinity|nan)\s*$/i;

function validate(type: FieldType, v: TValue, loc: (string | number)[]): TValue {
  switch (type.kind) {
    case "any":
      return v;
    case "str":
      if (typeof v === "string") return v;
      throw issue(loc, "string_type", "Input should be a valid string", v);
    case "int": {
      if (typeof v === "bigint") return v;
      if (typeof v === "boolean") return v ? 1n : 0n;
      if (typeof v === "number") {
        if (!Number.isFinite(v)) throw issue(loc, "finite_number", "Input should be a finite number", v);
        if (!Number.isInteger(v)) throw issue(loc, "int_from_float", "Input should be a valid integer, got a number with a fractional part", v);
        return BigInt(v);
      }
      if (typeof v === "string") {
        const s = v.trim().replace(/_/g, "");
        if (/^[+-]?\d+$/.test(s)) return BigInt(s);
        if (/^[+-]?\d+\.0*$/.test(s)) return BigInt(s.replace(/\.0*$/, ""));
        throw issue(loc, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", v);
      }
      throw issue(loc, "int_type", "Input should be a valid integer", v);
    }
    case "float": {
      if (typeof v === "number") return v;
      if (typeof v === "bigint") return Number(v);
      if (typeof v === "boolean") return v ? 1 : 0;
      if (typeof v === "string") {
        if (FLOAT_TEXT.test(v)) {
          const s = v.trim().replace(/_/g, "").toLowerCase();
          if (s.endsWith("nan")) return NaN;
          if (s.endsWith("inf") || s.endsWith("infinity")) return s.startsWith("-") ? -Infinity : Infinity;
          return Number(s);
        }
        throw issue(loc, "float_parsing", "Input should be a valid number, unable to parse string as a number", v);
      }
      throw issue(loc, "float_type", "Input should be a valid number", v);
    }
    case "bool": {
      if (typeof v === "boolean") return v;
      if (typeof v === "bigint" && (v === 0n || v === 1n)) return v === 1n;
      if (typeof v === "number" && (v === 0 || v === 1)) return v === 1;
      if (typeof v === "string") {
        const s = v.trim().toLowerCase();
        if (["1", "on", "t", "true", "y", "yes"].includes(s)) return true;
        if (["0", "off", "f", "false", "n", "no"].includes(s)) return false;
        throw issue(loc, "bool_parsing", "Input should be a valid boolean, unable to interpret input", v);
      }
      if (typeof v === "bigint" || typeof v === "number") throw issue(loc, "bool_parsing", "Input should be a valid boolean, unable to interpret input", v);
      throw issue(loc, "bool_type", "Input should be a valid boolean", v);
    }
    case "literal":
      if (typeof v === "string" && type.values.includes(v)) return v;
      throw issue(loc, "literal_error", `Input should be ${expected(type.values)}`, v);
    case "enum":
      if (typeof v === "string" && type.values.includes(v)) return v;
      throw issue(loc, "enum", `Input should be ${expected(type.values)}`, v);
    case "date":
      return dateOf(v, loc);
    case "datetime":
      return dateTimeOf(v, loc);
    case "optional":
      return v === null ? null : validate(type.inner, v, loc);
    case "list": {
      const items = Array.isArray(v) ? v : v instanceof PyTuple ? (v.items as TValue[]) : undefined;
      if (!items) throw issue(loc, "list_type", "Input should be a valid list", v);
      const out: TValue[] = [];
      const issues: Issue[] = [];
      items.forEach((x, i) => {
        try {
          out.push(validate(type.item, x, [...loc, i]));
        } catch (e) {
          if (!(e instanceof Fail)) throw e;
          issues.push(...e.issues);
        }
      });
      if (issues.length) throw new Fail(issues);
      return out;
    }
    case "dict": {
      const es = mapping(v);
      if (!es || isModel(v)) throw issue(loc, "dict_type", "Input should be a valid dictionary", v);
      const out = new Map<string, TValue>();
      const issues: Issue[] = [];
      for (const [k, x] of es) {
        try {
          const key = type.key ? (validate(type.key, k, [...loc, k, "[key]"]) as string) : k;
          out.set(key, validate(type.value, x, [...loc, k]));
        } catch (e) {
          if (!(e instanceof Fail)) throw e;
          issues.push(...e.issues);
        }
      }
      if (issues.length) throw new Fail(issues);
      return out;
    }
    case "model":
      return validateFields(type.model, v, loc);
    case "union": {
      // Smart mode: the first member that validates (members are tried in order; the data's members are disjoint).
      const issues: Issue[] = [];
      for (const option of type.options) {
        try {
          return validate(option, v, loc);
        } catch (e) {
          if (!(e instanceof Fail)) throw e;
          const tag = option.kind === "model" ? option.model.name : option.kind === "literal" ? `literal[${option.values.map((x) => `'${x}'`).join(",")}]` : option.kind === "dict" ? "dict[str,any]" : option.kind;
          issues.push(...e.issues.map((i) => ({ ...i, loc: [...loc, tag, ...i.loc.slice(loc.length)] })));
        }
      }
      throw new Fail(issues);
    }
  }
}

function expected(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  return quoted.length <= 1 ? (quoted[0] ?? "") : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;

function dateOf(v: TValue, loc: (string | number)[]): PyDate {
  if (v instanceof PyDate) return v;
  if (typeof v === "string") {
    const m = DATE_RE.exec(v);
    if (m) {
      try {
        return new PyDate(Number(m[1]), Number(m[2]), Number(m[3]));
      } catch {
        throw issue(loc, "date_from_datetime_parsing", "Input should be a valid date or datetime, day value is outside expected range", v);
      }
    }
    throw issue(loc, "date_from_datetime_parsing", "Input should be a valid date or datetime, input is too short", v);
  }
  if (v instanceof PyDateTime) return new PyDate(v.year, v.month, v.day);
  throw issue(loc, "date_type", "Input should be a valid date", v);
}

function dateTimeOf(v: TValue, loc: (string | number)[]): PyDateTime {
  if (v instanceof PyDateTime) return v;
  if (v instanceof PyDate) return new PyDateTime(v.year, v.month, v.day);
  if (typeof v === "string") {
    const m = DATETIME_RE.exec(v);
    if (m) {
      try {
        return new PyDateTime(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
      } catch {
        throw issue(loc, "datetime_from_date_parsing", "Input should be a valid datetime or date, day value is outside expected range", v);
      }
    }
    const d = DATE_RE.exec(v);
    if (d) return new PyDateTime(Number(d[1]), Number(d[2]), Number(d[3]));
    throw issue(loc, "datetime_from_date_parsing", "Input should be a valid datetime or date, input is too short", v);
  }
  throw issue(loc, "datetime_type", "Input should be a valid datetime", v);
}

function validateFields(spec: ModelSpec, v: TValue, loc: (string | number)[]): TModel {
  const es = mapping(v);
  if (!es) throw issue(loc, "model_type", `Input should be a valid dictionary or instance of ${spec.name}`, v);
  const given = new Map(es);
  const out: TModel = {};
  const issues: Issue[] = [];
  for (const f of spec.fields) {
    if (!given.has(f.name)) {
      if (f.default === undefined) {
        issues.push({ loc: [...loc, f.name], type: "missing", msg: "Field required", input: isModel(v) ? v : (v as TValue) });
        continue;
      }
      const d = f.default();
      if (!f.validateDefault) {
        out[f.name] = d;
        continue;
      }
      try {
        out[f.name] = validate(f.type, d, [...loc, f.name]);
      } catch (e) {
        if (!(e instanceof Fail)) throw e;
        issues.push(...e.issues);
      }
      continue;
    }
    try {
      out[f.name] = validate(f.type, given.get(f.name)!, [...loc, f.name]);
    } catch (e) {
      if (!(e instanceof Fail)) throw e;
      issues.push(...e.issues);
    }
  }
  if (spec.forbidExtra) {
    const known = new Set(spec.fields.map((f) => f.name));
    for (const [k, x] of es) if (!known.has(k)) issues.push({ loc: [...loc, k], type: "extra_forbidden", msg: "Extra inputs are not permitted", input: x });
  }
  if (issues.length) throw new Fail(issues);
  return out;
}

/** `Model(**kwargs)` / `Model.model_validate(data)`: the model, or pydantic's ValidationError. */
export function validateModel(spec: ModelSpec, input: TValue): TModel {
  try {
    return validateFields(spec, input, []);
  } catch (e) {
    if (e instanceof Fail) throw new ValidationError(spec.name, e.issues);
    throw e;
  }
}

/** A model from keyword arguments (no mapping check on the whole: kwargs are always a dict). */
export function construct(spec: ModelSpec, kwargs: Record<string, TValue>): TModel {
  return validateModel(spec, new Map(Object.entries(kwargs)));
}

/** A field's value, validated on its own (e.g. an argument the tool passes to a model constructor). */
export function validateValue(spec: ModelSpec, field: string, v: TValue): TValue {
  const f = spec.fields.find((x) => x.name === field)!;
  try {
    return validate(f.type, v, [field]);
  } catch (e) {
    if (e instanceof Fail) throw new ValidationError(spec.name, e.issues);
    throw e;
  }
}

/** A loaded data file validated into a model; the error names the file and each bad path. */
export function validateFile(spec: ModelSpec, input: TValue, file: string): TModel {
  try {
    return validateFields(spec, input, []);
  } catch (e) {
    if (!(e instanceof Fail)) throw e;
    const shown = e.issues.slice(0, 5).map((i) => `${i.loc.join(".") || "(root)"}: ${i.msg} (got ${inputRepr(i.input)})`);
    const more = e.issues.length > 5 ? ` (+${e.issues.length - 5} more)` : "";
    throw new Tau2DataError(`${file} is not a valid ${spec.name}: ${shown.join("; ")}${more}`);
  }
}

/** A data file that cannot be used: the message names the file (and the JSON path inside it). */
export class Tau2DataError extends Error {}

export { pyFloatRepr };
