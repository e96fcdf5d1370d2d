import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { memberProcedure } from "../../../trpc/init";
import { createReport } from "../service";

export const reportTitle = z.string().trim().min(1, "title is required").max(200, "title is at most 200 characters");
export const reportBody = z.string().max(50_000, "notes are at most 50,000 characters");
export const reportRunIds = z.array(z.string().uuid("run ids must be UUIDs")).min(1, "pick at least one run").max(20, "at most 20 runs per report");

export const createReportInput = z.object({
  title: reportTitle,
  body: reportBody
    .default("")
    .describe("Notes in Markdown (GFM tables, $math$, and ```envace-chart / ```envace-table blocks that embed the report's charts and result table)"),
  runIds: reportRunIds.describe("The runs the report's results, charts and tables are computed from, in order"),
});

export const create = memberProcedure
  .meta(
    rest({
      method: "POST",
      path: "/reports",
      tag: "reports",
      access: "write",
      summary: "Create a report over some runs",
      description: "Results stay live until the report is frozen in the app.",
    }),
  )
  .input(createReportInput)
  .output(z.object({ id: z.string().uuid(), title: z.string() }))
  .mutation(({ ctx, input }) => createReport(ctx.user, input));
