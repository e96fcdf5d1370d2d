/**
 * Built-in domains by name (`builtin:<name>` in the run config's data.dataset).
 */
import type { BuiltinDomainName } from "../../contracts/run-config";
import type { TaskInstance } from "../engine/types";
import { generateShopInstances, shopTaskById, shopTasks } from "./shop";

export interface BuiltinDomain {
  name: string;
  /** Every instance of a split, in a fixed order. */
  all(split: "train" | "test"): TaskInstance[];
  /** `count` instances sampled deterministically from a split. */
  sample(seed: number, count: number, split: "train" | "test"): TaskInstance[];
  byId(id: string): TaskInstance | undefined;
}

/** Keyed by the names the run config accepts (contracts/run-config.ts builtinDomainNames): a domain added here is added there. */
export const builtinDomains: Record<BuiltinDomainName, BuiltinDomain> = {
  shop: { name: "shop", all: shopTasks, sample: generateShopInstances, byId: shopTaskById },
};

/** Resolve `builtin:<name>`; throws a clear error for unknown names. */
export function builtinDomain(dataset: string): BuiltinDomain {
  const name = dataset.startsWith("builtin:") ? dataset.slice("builtin:".length) : dataset;
  const domain = Object.hasOwn(builtinDomains, name) ? builtinDomains[name as BuiltinDomainName] : undefined;
  if (!domain) throw new Error(`unknown built-in domain "${name}" (known: ${Object.keys(builtinDomains).join(", ")})`);
  return domain;
}
