/**
 * Built-in domains by name (`builtin:<name>` in the run config's data.dataset).
 */
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

export const builtinDomains: Record<string, BuiltinDomain> = {
  shop: { name: "shop", all: shopTasks, sample: generateShopInstances, byId: shopTaskById },
};

/** Resolve `builtin:<name>`; throws a clear error for unknown names. */
export function builtinDomain(dataset: string): BuiltinDomain {
  const name = dataset.startsWith("builtin:") ? dataset.slice("builtin:".length) : dataset;
  const domain = builtinDomains[name];
  if (!domain) throw new Error(`unknown built-in domain "${name}" (known: ${Object.keys(builtinDomains).join(", ")})`);
  return domain;
}
