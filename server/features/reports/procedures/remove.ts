import { z } from "zod";
import { memberProcedure } from "../../../trpc/init";
import { deleteReport } from "../service";

export const removeReportInput = z.object({ id: z.string().uuid("report id must be a UUID") });

export const remove = memberProcedure.input(removeReportInput).mutation(({ ctx, input }) => deleteReport(ctx.user, input.id));
