/**
 * One VitaBench world: the task's database (one domain DB, or upstream's MergedDB of several for a cross-domain
 * run), its registries and clock, and the tool dispatcher of vita/environment/environment.py `get_response`:
 * Python's call binding (its TypeError texts), the `is_tool` wrapper (an AssertionError becomes the tool's plain
 * answer), `Error: {e}` for any other exception, and `to_json_str` for answers that are not strings.
 */
import { createHash } from "node:crypto";
import { strptime, type PyDateTime } from "../../../lib/python/datetime";
import { pyFloatRepr, pyJsonString } from "../../../lib/python/json";
import { PyDict, PyException, PyTuple, pyStr, pyTypeName, typeError, valueError, type PyValue } from "../../../lib/python/values";
import { compareStrings } from "../../../lib/python/values";
import { construct, DeliveryDB, InStoreDB, OTADB, PyModel, type ModelClass } from "./models";
import { Registries, type Clock } from "./registry";

export type Language = "chinese" | "english";
export type Domain = "delivery" | "instore" | "ota";
export const DOMAINS: readonly Domain[] = ["delivery", "instore", "ota"];

/** `assert cond, message`: upstream's tools return the message as their answer. */
export class PyAssertion extends Error {
  constructor(readonly pyMessage: string) {
    super(pyMessage);
  }
}
export function check(cond: boolean, message: string | (() => string)): asserts cond {
  if (!cond) throw new PyAssertion(typeof message === "string" ? message : message());
}

export interface ToolParam {
  name: string;
  /** Absent: required. */
  default?: PyValue;
}

export interface ToolDef {
  name: string;
  /** The function's `__qualname__` (Python's call-binding errors name it). */
  qualname: string;
  params: readonly ToolParam[];
  run(w: World, args: Record<string, PyValue>): PyValue;
}

/** The domain DBs' own keys (vita/domains/<d>/environment.py get_environment). */
const DB_KEYS: Record<Domain, { cls: ModelClass; keys: string[]; empty: string[] }> = {
  delivery: { cls: DeliveryDB, keys: ["stores", "orders", "time", "user_id", "weather", "location", "user_historical_behaviors"], empty: ["stores", "orders"] },
  instore: {
    cls: InStoreDB,
    keys: ["shops", "orders", "reservations", "books", "time", "user_id", "weather", "location", "user_historical_behaviors"],
    empty: ["shops", "books", "reservations", "orders"],
  },
  ota: {
    cls: OTADB,
    keys: ["orders", "hotels", "attractions", "flights", "trains", "time", "user_id", "weather", "location", "user_historical_behaviors"],
    empty: ["hotels", "attractions", "flights", "trains", "orders"],
  },
};

export class World {
  readonly reg: Registries;
  /** The domain DBs in the order the domain string names them; attributes resolve to the last that has one (MergedDB). */
  readonly dbs: PyModel[] = [];
  private readonly tools = new Map<string, ToolDef>();

  constructor(
    readonly domains: readonly Domain[],
    environment: PyDict,
    readonly language: Language,
    clock: Clock,
    toolsOf: (d: Domain) => readonly ToolDef[],
    generic: readonly ToolDef[],
  ) {
    this.reg = new Registries(clock);
    for (const d of domains) {
      const { cls, keys, empty } = DB_KEYS[d];
      const dict = new PyDict();
      for (const [k, v] of environment.entries()) if (typeof k === "string" && keys.includes(k)) dict.set(k, v);
      for (const k of empty) if (!dict.has(k)) dict.set(k, new PyDict());
      this.dbs.push(construct(cls, dict, "environment", this.reg));
    }
    // Tool order as upstream lists them: a domain's own tools, then the toolkit's; a cross-domain toolkit lists the
    // toolkit's first, then each domain's.
    const order = domains.length === 1 ? [...toolsOf(domains[0]!), ...generic] : [...generic, ...domains.flatMap(toolsOf)];
    for (const t of order) if (!this.tools.has(t.name)) this.tools.set(t.name, t);
  }

  toolNames(): string[] {
    return [...this.tools.keys()];
  }

  has(field: string): boolean {
    return this.dbs.some((db) => db.has(field));
  }

  /** `self.db.<field>` (MergedDB: the last domain DB that has the field). */
  get(field: string): PyValue {
    for (let i = this.dbs.length - 1; i >= 0; i--) if (this.dbs[i]!.has(field)) return this.dbs[i]!.get(field);
    throw new PyException("AttributeError", `'${this.dbs.length > 1 ? "MergedDB" : this.dbs[0]!.cls.pyName}' object has no attribute '${field}'`);
  }
  dict(field: string): PyDict {
    return this.get(field) as PyDict;
  }

  /** `db.model_dump()` (MergedDB: each DB's dump merged in order). */
  dump(): PyDict {
    const out = new PyDict();
    for (const db of this.dbs) for (const [k, v] of db.dump().entries()) out.set(k, v);
    return out;
  }

  /** sha256 of `json.dumps(db.model_dump(), sort_keys=True, default=str, ensure_ascii=False)` (upstream's get_db_hash). */
  stateHash(): string {
    return createHash("sha256").update(jsonDumps(this.dump(), { sortKeys: true })).digest("hex");
  }

  /** ToolKitBase.get_now: the task's time (upstream's worlds always carry one). */
  now(): PyValue {
    const t = this.get("time");
    if (typeof t === "string" && t.length > 0) return t;
    return PY_NOW_FALLBACK;
  }

  /** DB.assign_order_id: id_prefix + sha256(prefix + params + str(datetime.now().timestamp()))[:10]. */
  assignOrderId(scenario: keyof typeof SCENARIOS, userId: PyValue, extra: Record<string, PyValue> = {}): string {
    const cfg = SCENARIOS[scenario];
    let input: string = cfg.prefix;
    for (const p of cfg.params) {
      if (p === "user_id") input = concat(input, userId);
      else input += pyStr(extra[p]!);
    }
    input += pyFloatRepr(this.reg.clock.now());
    return cfg.idPrefix + createHash("sha256").update(input).digest("hex").slice(0, 10);
  }

  /** Environment.get_response for one call: (content, error). */
  call(name: string, args: PyValue): { content: string; error: boolean } {
    try {
      const tool = this.tools.get(name);
      if (!tool) throw valueError(`Tool '${name}' not found.`);
      const bound = bind(tool, args);
      let resp: PyValue;
      try {
        resp = tool.run(this, bound);
      } catch (e) {
        if (e instanceof PyAssertion) resp = e.pyMessage;
        else throw e;
      }
      return { content: toJsonStr(resp), error: false };
    } catch (e) {
      if (e instanceof PyException) return { content: toJsonStr(`Error: ${e.pyMessage}`), error: true };
      if (e instanceof PyAssertion) return { content: e.pyMessage, error: false };
      throw e;
    }
  }
}

// Upstream's worlds always have a time; without one get_now would read a module global that is never set.
const PY_NOW_FALLBACK = "";

const SCENARIOS = {
  delivery: { prefix: "#DELIVERY#", idPrefix: "OT", params: ["user_id"] },
  hotel: { prefix: "#HOTEL#", idPrefix: "OO", params: ["hotel_id", "product_id", "user_id"] },
  attraction: { prefix: "#ATTRACTION#", idPrefix: "OO", params: ["user_id"] },
  flight: { prefix: "#FLIGHT#", idPrefix: "OO", params: ["user_id"] },
  train: { prefix: "#TRAIN#", idPrefix: "OO", params: ["user_id"] },
  instore: { prefix: "#INSTORE#", idPrefix: "OI", params: [] },
  instore_book: { prefix: "#INSTORE_BOOK#", idPrefix: "OI", params: [] },
  instore_reservation: { prefix: "#INSTORE_RESV#", idPrefix: "OI", params: [] },
} as const;

/** `a + b` for a str a. */
export function concat(a: string, b: PyValue): string {
  if (typeof b !== "string") throw typeError(`can only concatenate str (not "${pyTypeName(b)}") to str`);
  return a + b;
}

/** Python's binding of keyword arguments to a function's parameters (`f(**kwargs)`), with its TypeError texts. */
function bind(tool: ToolDef, args: PyValue): Record<string, PyValue> {
  if (!(args instanceof PyDict)) throw typeError(`${tool.qualname}() argument after ** must be a mapping, not ${pyTypeName(args)}`);
  const out: Record<string, PyValue> = {};
  const names = new Set(tool.params.map((p) => p.name));
  for (const [k, v] of args.entries()) {
    if (typeof k !== "string") throw typeError("keywords must be strings");
    if (!names.has(k)) throw typeError(`${tool.qualname}() got an unexpected keyword argument '${k}'`);
    out[k] = v;
  }
  const missing = tool.params.filter((p) => !(p.name in out) && p.default === undefined).map((p) => `'${p.name}'`);
  if (missing.length) {
    const list = missing.length === 1 ? missing[0] : missing.length === 2 ? missing.join(" and ") : `${missing.slice(0, -1).join(", ")}, and ${missing[missing.length - 1]}`;
    throw typeError(`${tool.qualname}() missing ${missing.length} required positional argument${missing.length > 1 ? "s" : ""}: ${list}`);
  }
  for (const p of tool.params) if (!(p.name in out)) out[p.name] = p.default!;
  return out;
}

/** Environment.to_json_str: strings as they are; anything else with numbers as strings, then json.dumps. */
export function toJsonStr(resp: PyValue): string {
  if (typeof resp === "string") return resp;
  const process = (v: PyValue): PyValue => {
    if (v instanceof PyModel) return v.dump();
    if (typeof v === "string" || v === null) return v;
    if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return pyStr(v);
    if (Array.isArray(v)) return v.map(process);
    if (v instanceof PyTuple) return new PyTuple(v.items.map(process));
    if (v instanceof PyDict) return PyDict.of(v.entries().map(([k, x]) => [k, process(x)] as const));
    throw valueError(`Unsupported type: <class '${pyTypeName(v)}'>`);
  };
  return jsonDumps(process(resp), {});
}

/** `json.dumps(v, ensure_ascii=False, default=str[, sort_keys=True])`. */
export function jsonDumps(v: PyValue, opts: { sortKeys?: boolean }): string {
  const parts: string[] = [];
  const walk = (x: PyValue): void => {
    if (x === null) return void parts.push("null");
    switch (typeof x) {
      case "boolean":
        return void parts.push(x ? "true" : "false");
      case "bigint":
        return void parts.push(x.toString());
      case "number":
        return void parts.push(Number.isNaN(x) ? "NaN" : x === Infinity ? "Infinity" : x === -Infinity ? "-Infinity" : pyFloatRepr(x));
      case "string":
        return void parts.push(pyJsonString(x, false));
    }
    if (Array.isArray(x) || x instanceof PyTuple) {
      const items = Array.isArray(x) ? x : x.items;
      parts.push("[");
      items.forEach((y, i) => {
        if (i) parts.push(", ");
        walk(y);
      });
      return void parts.push("]");
    }
    if (x instanceof PyDict) {
      let entries = x.entries().map(([k, y]) => [typeof k === "string" ? k : pyStr(k), y] as const);
      if (opts.sortKeys) entries = [...entries].sort((a, b) => compareStrings(a[0], b[0]));
      parts.push("{");
      entries.forEach(([k, y], i) => {
        if (i) parts.push(", ");
        parts.push(pyJsonString(k, false), ": ");
        walk(y);
      });
      return void parts.push("}");
    }
    if (x instanceof PyModel) return walk(x.dump());
    parts.push(pyJsonString(pyStr(x), false)); // default=str
  };
  walk(v);
  return parts.join("");
}

// ---------------------------------------------------------------------------------------------------------------
// vita/utils/utils.py helpers

/** check_time_format(time, format): strptime succeeds (a ValueError is False; a TypeError propagates). */
export function checkTimeFormat(time: PyValue, format = "%Y-%m-%d %H:%M:%S"): boolean {
  try {
    strptime(time, format);
    return true;
  } catch (e) {
    if (e instanceof PyException && e.pyType === "ValueError") return false;
    throw e;
  }
}

export const strToDatetime = (time: PyValue): PyDateTime => strptime(time, "%Y-%m-%d %H:%M:%S");

/** upstream's `rerank(keywords, docs)`: thefuzz extract, each document mapped back to the LAST key holding it. */
export { rerank } from "./rerank";
