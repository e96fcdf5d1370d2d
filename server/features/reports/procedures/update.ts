import { z } from "zod";
import { memberProcedure } from "../../../trpc/init";
import { updateReport } from "../service";
import { reportBody, reportRunIds, reportTitle } from "./create";

export const updateReportInput = z.object({
  id: z.string().uuid("report id must be a UUID"),
  title: reportTitle.optional(),
  body: reportBody.optional(),
  runIds: reportRunIds.optional(),
});

export const update = memberProcedure.input(updateReportInput).mutation(({ ctx, input }) => updateReport(ctx.user, input));
