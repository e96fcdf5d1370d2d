import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { shareResult } from "../../../lib/live-reads";
import { evaluationOutput } from "../schemas";
import { getRun } from "../service";
import { runEvaluations } from "../evaluations";

export const evaluationsInput = z.object({ id: z.string().uuid("run id must be a UUID") });

export const evaluations = authedProcedure
  .meta(
    rest({
      method: "GET",
      path: "/runs/{id}/evaluations",
      tag: "runs",
      access: "read",
      summary: "A run's evaluations: its own and each evaluation suite's, per evaluated step",
      description:
        "One row per committed evaluation step: the training dataset's own evaluation (`suite: null`), each evaluation suite of `schedule.evalSuites` (`suite: <name>`, charted as `val/<name>/…`), or an evaluation run's one pass. `success` is the share of episodes the benchmark's own checker counts as won (avg@k), `passAtK` the share of tasks won at least once in k trials.",
      errors: { 404: "No such run" },
    }),
  )
  .input(evaluationsInput)
  // Shared by every open page of the run until one of its steps commits (server/lib/live-reads.ts).
  .use(({ input, next }) => shareResult("runs.evaluations", input, [`step:${input.id}`], () => next()))
  .output(z.object({ items: z.array(evaluationOutput) }))
  .query(async ({ input }) => {
    await getRun(input.id);
    return { items: await runEvaluations([input.id]) };
  });
