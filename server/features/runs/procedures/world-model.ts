import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { worldModel } from "../world-model";

export const worldModelInput = z.object({
  runId: z.string().uuid("run id must be a UUID"),
  /** Training rollouts, evaluation rollouts, or both. */
  phase: z.enum(["all", "train", "eval"]).default("all"),
  /** How many of the most frequent divergences to return. */
  limit: z.number().int().min(1, "limit must be at least 1").max(200, "at most 200 divergences per request").default(25),
  /** Only this tool's divergences. */
  tool: z.string().min(1).max(200).nullish(),
  /** Points per phase on the per-step chart; a longer phase is drawn in buckets of several steps. */
  maxSteps: z.number().int().min(10, "maxSteps must be at least 10").max(2000, "at most 2000 points per phase").default(300),
});

/** Fidelity per tool and per step and the most frequent divergences of a run (docs/FIDELITY.md). */
export const worldModelProcedure = authedProcedure.input(worldModelInput).query(({ input }) => worldModel(input));
