import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { checkpointEvaluationOutput } from "../schemas";
import { listCheckpointEvaluations } from "../service";

export const checkpointEvaluationsInput = z.object({ runId: z.string().uuid("run id must be a UUID") });

/** The evaluation runs of a training run's checkpoints (Run.evaluatedCheckpoint), newest first. */
export const checkpointEvaluations = authedProcedure
  .meta(rest({ method: "GET", path: "/runs/{runId}/checkpoint-evaluations", tag: "runs", access: "read", summary: "The evaluation runs of a training run's checkpoints, newest first" }))
  .input(checkpointEvaluationsInput)
  .output(z.array(checkpointEvaluationOutput))
  .query(({ input }) => listCheckpointEvaluations(input.runId));
