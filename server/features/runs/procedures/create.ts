import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { memberProcedure } from "../../../trpc/init";
import { runDetailOutput } from "../schemas";
import { createRun } from "../service";

export const createRunInput = z.object({
  name: z.string().trim().min(1, "name is required").max(200).describe("Shown in run lists and reports"),
  tags: z.array(z.string().trim().min(1).max(50)).max(20).default([]),
  /** Validated by the shared run-config schema in the service (errors name the field, as `config.<path>`). */
  config: z.unknown().openapi({
    description: "Run settings; omitted fields take their defaults (RunConfigInput in this document)",
    "x-envace-schema": "RunConfigInput",
  }),
  parentRunId: z.string().uuid().optional().describe("The run this one was cloned from"),
});

export const create = memberProcedure
  .meta(
    rest({
      method: "POST",
      path: "/runs",
      tag: "runs",
      access: "write",
      summary: "Launch a run",
      description:
        "Validates the config with the shared run-config schema (an unknown setting is refused) and runs the launch check — the dataset exists, every node named is registered and passes the node doctor for its role, each role's smallest prompt fits its model's context, a `policy.checkpoint` names a readable training run's checkpoint that was not deleted and that `policy.node` can sample — then queues the run and its job in one transaction. A checkpoint is pinned as resolved (the run by id, \"latest\" as its step number) and returned as `evaluatedCheckpoint`. Each refusal is a 400 `fieldErrors` entry naming its setting (`config.data.dataset`, `config.rollout.userSimulator.node`, …).",
    }),
  )
  .input(createRunInput)
  .output(runDetailOutput)
  .mutation(({ ctx, input }) => createRun(ctx.user.id, input, ctx.user.role));
