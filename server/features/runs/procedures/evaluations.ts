import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { evaluationOutput } from "../schemas";
import { listEvaluations } from "../service";

export const evaluationsInput = z.object({ runId: z.string().uuid("run id must be a UUID") });

/** The evaluation runs of a training run's checkpoints (Run.evaluatedCheckpoint), newest first. */
export const evaluations = authedProcedure
  .meta(rest({ method: "GET", path: "/runs/{runId}/evaluations", tag: "runs", access: "read", summary: "The evaluation runs of a training run's checkpoints, newest first" }))
  .input(evaluationsInput)
  .output(z.array(evaluationOutput))
  .query(({ input }) => listEvaluations(input.runId));
