/** `builtin:<name>`: the built-in domains (worker/domains), generated tasks with executable worlds. */
import type { RunConfig } from "../../contracts/run-config";
import { seededShuffle, stepSeed, takeCyclic } from "../../lib/random";
import { builtinDomain } from "../domains";
import type { TaskInstance } from "../engine/types";
import type { EnvironmentKind } from "./environment";

/** Seed of the draw that fixes a run's task pool (data.poolSize); distinct from every step's seed. */
export const POOL_STEP = 0x5eed;

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
