/**
 * Retail for the harness: its RetailEnv (the 15 tools, copy-on-write over the shared DB) as the agent's
 * toolkit. Calls go to RetailEnv.call with the arguments as plain JSON values, so retail answers exactly
 * as it always has (its own texts for non-object arguments); the user has no tools.
 */
import { PyDict, PyException, PyTuple, type PyValue } from "../../../../../lib/python/values";
import type { DomainEnv } from "../../harness/domain";
import type { TValue } from "../../harness/py";
import type { Toolkit } from "../../harness/toolkit";
import { RetailEnv, TOOLS } from "./env";
import type { RetailDb } from "./model";

/** Python values back to the plain JSON values RetailEnv takes. */
export function toPlain(v: TValue): unknown {
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(toPlain);
  if (v instanceof PyTuple) return v.items.map((x) => toPlain(x as TValue));
  if (v instanceof PyDict) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v.entries()) Object.defineProperty(out, String(k), { value: toPlain(x as TValue), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v as PyValue;
}

export function retailToolkit(env: RetailEnv): Toolkit & { useToolRaw(name: string, args: TValue): TValue } {
  const useToolRaw = (name: string, args: TValue): TValue => {
    const r = env.call(name, toPlain(args));
    // RetailEnv writes "Error: <message>"; the Environment adds the prefix again.
    if (r.error) throw new PyException("Exception", r.content.slice("Error: ".length));
    return r.content;
  };
  return {
    className: "RetailTools",
    toolNames: Object.keys(TOOLS),
    hasTool: (name) => Object.hasOwn(TOOLS, name),
    useTool: (name, kwargs) => useToolRaw(name, kwargs),
    useToolRaw,
    hasFunction: (name) => Object.hasOwn(TOOLS, name),
    callFunction: (name, kwargs) => useToolRaw(name, kwargs),
  };
}

export function retailDomainEnv(db: RetailDb): DomainEnv & { retail: RetailEnv } {
  const env = new RetailEnv(db);
  return {
    retail: env,
    tools: retailToolkit(env),
    userTools: null,
    sync() {},
    dbHash: () => env.hash(),
    userDbHash: () => null,
    updateDb() {
      throw new PyException("NotImplementedError", "retail tasks have no initialization data in this port");
    },
    dump: (side) => (side === "user" ? null : env.dump()),
  };
}
