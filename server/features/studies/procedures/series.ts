import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { studySeriesOutput } from "../schemas";
import { studySeries } from "../service";

export const studySeriesInput = z.object({
  id: z.string().uuid("study id must be a UUID"),
  keys: z
    .preprocess((v) => (typeof v === "string" ? [v] : v), z.array(z.string().min(1).max(200)).min(1).max(40, "at most 40 metric keys per request"))
    .describe("Metric keys (repeat for several)"),
  maxPoints: z.number().int().min(2).max(2000).default(300),
});

export const series = authedProcedure
  .meta(
    rest({
      method: "GET",
      path: "/studies/{id}/series",
      tag: "studies",
      access: "read",
      summary: "A study's charts: per group, the mean and std across its runs at each step",
      errors: { 404: "No such study" },
    }),
  )
  .input(studySeriesInput)
  .output(studySeriesOutput)
  .query(({ input }) => studySeries(input));
