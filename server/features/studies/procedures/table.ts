import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { studyTableOutput } from "../schemas";
import { studyTable } from "../service";

export const studyTableInput = z.object({
  id: z.string().uuid("study id must be a UUID"),
  // Over REST the step arrives as text.
  step: z
    .preprocess((v) => (typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v), z.union([z.literal("latest"), z.number().int().min(0)]))
    .default("latest")
    .describe("The evaluated step (a checkpoint's), or latest: each run's last evaluation of each benchmark"),
});

export const table = authedProcedure
  .meta(
    rest({
      method: "GET",
      path: "/studies/{id}/table",
      tag: "studies",
      access: "read",
      summary: "Per-benchmark means ± std across seeds, per group",
      description:
        "One row per benchmark — a run's own evaluation of its dataset, each evaluation suite, each dataset an evaluation run of one of its checkpoints evaluated — and one cell per group: reward, success (avg@k) and pass@k as mean, sample std, n, min and max across the group's runs, at the chosen step or each run's latest.",
      errors: { 404: "No such study" },
    }),
  )
  .input(studyTableInput)
  .output(studyTableOutput)
  .query(({ input }) => studyTable(input));
