/**
 * tau2's `update_pydantic_model_with_dict`: `addict.Dict(model.model_dump())` updated with
 * `addict.Dict(update)` — nested dicts merged key by key, anything else (lists included) replaced — then
 * `model_validate` of the result.
 */
import { PyDict } from "../../../../lib/python/values";
import { isModel, type TModel, type TValue } from "./py";

function entriesOf(v: TValue): [string, TValue][] | undefined {
  if (v instanceof PyDict) return v.entries().map(([k, x]) => [String(k), x as TValue]);
  if (v instanceof Map) return [...v.entries()];
  if (isModel(v)) return Object.entries(v);
  return undefined;
}

/** The merged plain data (a Map tree) to validate. */
export function mergeForUpdate(current: TValue, update: TValue): TValue {
  const base = entriesOf(current);
  const patch = entriesOf(update);
  if (!base || !patch) return update;
  const out = new Map<string, TValue>(base.map(([k, v]) => [k, toData(v)]));
  for (const [k, v] of patch) {
    const existing = out.get(k);
    out.set(k, existing !== undefined && entriesOf(existing) && entriesOf(v) ? mergeForUpdate(existing, v) : toData(v));
  }
  return out;
}

/** A model or dict as plain data (Maps), the way model_dump hands it to the merge. */
function toData(v: TValue): TValue {
  if (isModel(v) || v instanceof PyDict || v instanceof Map) return new Map(entriesOf(v)!.map(([k, x]) => [k, toData(x)]));
  if (Array.isArray(v)) return v.map(toData);
  return v;
}

export type { TModel };
