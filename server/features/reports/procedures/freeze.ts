import { z } from "zod";
import { memberProcedure } from "../../../trpc/init";
import { freezeReport, unfreezeReport } from "../service";

export const freezeReportInput = z.object({ id: z.string().uuid("report id must be a UUID") });

export const freeze = memberProcedure.input(freezeReportInput).mutation(({ ctx, input }) => freezeReport(ctx.user, input.id));
export const unfreeze = memberProcedure.input(freezeReportInput).mutation(({ ctx, input }) => unfreezeReport(ctx.user, input.id));
