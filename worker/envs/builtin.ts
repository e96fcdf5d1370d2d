/**
 * `builtin:<name>`: the built-in domains, generated tasks with executable worlds. A domain is a folder
 * (`shop/`, with the shape of every benchmark) plus one line in `builtinDomains` below.
 */
import type { BuiltinDomainName, RunConfig } from "../../contracts/run-config";
import { seededShuffle, stepSeed, takeCyclic } from "../../lib/random";
import type { TaskInstance } from "../engine/types";
import { POOL_STEP, type BuiltinDomain, type EnvironmentKind } from "./environment";
import { shopDomain } from "./shop/environment";

export { POOL_STEP, type BuiltinDomain };

/** Keyed by the names the run config accepts (contracts/run-config/parts.ts builtinDomainNames): a domain added here is added there. */
export const builtinDomains: Record<BuiltinDomainName, BuiltinDomain> = {
  shop: shopDomain,
};

/** Resolve `builtin:<name>`; throws a clear error for unknown names. */
export function builtinDomain(dataset: string): BuiltinDomain {
  const name = dataset.startsWith("builtin:") ? dataset.slice("builtin:".length) : dataset;
  const domain = Object.hasOwn(builtinDomains, name) ? builtinDomains[name as BuiltinDomainName] : undefined;
  if (!domain) throw new Error(`unknown built-in domain "${name}" (known: ${Object.keys(builtinDomains).join(", ")})`);
  return domain;
}

/** Instances of a built-in domain per step and for evaluation (no database needed; bench:quickstart uses it too). */
export function builtinInstances(config: RunConfig): { forStep(step: number): TaskInstance[]; evalSet(): TaskInstance[] } {
  const { dataset, split, instanceIds, instancesPerStep, seed, poolSize } = config.data;
  const domain = builtinDomain(dataset);
  if (instanceIds.length) {
    const chosen = instanceIds.map((id) => {
      const inst = domain.byId(id);
      if (!inst) throw new Error(`data.instanceIds: no instance "${id}" in ${dataset}`);
      return inst;
    });
    return { forStep: (step) => takeCyclic(chosen, instancesPerStep, (step - 1) * instancesPerStep), evalSet: () => chosen };
  }
  const evalSet = () => domain.sample(stepSeed(seed, 0), instancesPerStep, config.kind === "eval" ? split : "test");
  if (poolSize !== undefined) {
    // The first pass of a seeded draw has no repeats: poolSize distinct tasks (fewer if the split is smaller).
    const drawn = domain.sample(stepSeed(seed, POOL_STEP), poolSize, split);
    const pool = [...new Map(drawn.map((inst) => [inst.id, inst])).values()];
    return { forStep: (step) => takeCyclic(seededShuffle(pool, stepSeed(seed, step)), instancesPerStep), evalSet };
  }
  return { forStep: (step) => domain.sample(stepSeed(seed, step), instancesPerStep, split), evalSet };
}

export const builtinEnvironments: EnvironmentKind = {
  prefix: "builtin:",
  forms: "builtin:<name>",
  open: async ({ config }) => builtinInstances(config),
};
