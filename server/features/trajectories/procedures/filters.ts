import { z } from "zod";
import { EVAL_SUITE_NAME } from "../../../../contracts/run-config";

/** Filters shared by list and neighbours (they must agree, or J/K would walk a different list). */
export const trajectoryFiltersInput = z.object({
  runId: z.string().uuid("run id must be a UUID"),
  stepMin: z.number().int().min(0).optional(),
  stepMax: z.number().int().min(0).optional(),
  rewardMin: z.number().finite().optional(),
  rewardMax: z.number().finite().optional(),
  terminationReason: z.string().min(1).max(300).optional(),
  outcome: z.enum(["success", "failure", "error"]).optional(),
  instanceId: z.string().min(1).max(300).optional(),
  paradigm: z.enum(["rehearse", "simulator", "environment"]).optional(),
  /** Absent: train and eval trajectories; "private": the private attempts of test-time evaluations. */
  phase: z.enum(["train", "eval", "private"]).optional(),
  /** One evaluation suite's trajectories (phase suite:<name>); overrides `phase`. */
  suite: z.string().regex(EVAL_SUITE_NAME, "an evaluation suite's name (schedule.evalSuites)").optional().describe("Only this evaluation suite's trajectories"),
  sort: z.enum(["step", "reward_asc", "reward_desc"]).optional(),
});

export type TrajectoryFiltersInput = z.infer<typeof trajectoryFiltersInput>;
