/** Task instances for a run, by dataset reference in the config (deterministic per step for resumability). */
import type { PrismaClient } from "@prisma/client";
import type { RunConfig } from "../../contracts/run-config";
import { builtinDomain } from "../domains";
import type { TaskInstance } from "../engine/types";
import { tau2InstanceSource } from "./executors/tau2";

export interface InstanceSource {
  /** Instances for training step `step` (same answer on every call: resume replays identically). */
  forStep(step: number): TaskInstance[];
  /** The fixed evaluation set. */
  evalSet(): TaskInstance[];
}

function mix(seed: number, step: number): number {
  return (Math.imul(seed + 1, 1_000_003) + Math.imul(step, 7919)) >>> 0;
}

export async function instanceSource(_prisma: PrismaClient, config: RunConfig, note?: (message: string) => void): Promise<InstanceSource> {
  const { dataset, split, instanceIds, instancesPerStep, seed } = config.data;
  // tau2 retail (executors/tau2.ts): live-user instances scored by the real end state.
  if (dataset === "tau2:retail") return tau2InstanceSource(config, note);
  if (dataset.startsWith("builtin:")) {
    const domain = builtinDomain(dataset);
    if (instanceIds.length) {
      const chosen = instanceIds.map((id) => {
        const inst = domain.byId(id);
        if (!inst) throw new Error(`data.instanceIds: no instance "${id}" in ${dataset}`);
        return inst;
      });
      const cycle = (offset: number) => Array.from({ length: instancesPerStep }, (_, i) => chosen[(offset + i) % chosen.length]!);
      return { forStep: (step) => cycle((step - 1) * instancesPerStep), evalSet: () => chosen };
    }
    return {
      forStep: (step) => domain.sample(mix(seed, step), instancesPerStep, split),
      evalSet: () => domain.sample(mix(seed, 0), instancesPerStep, config.kind === "eval" ? split : "test"),
    };
  }
  throw new Error(`dataset ${dataset} is not available to the engine yet (supported: builtin:<name>, tau2:retail)`);
}
