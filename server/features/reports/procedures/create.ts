import { z } from "zod";
import { memberProcedure } from "../../../trpc/init";
import { createReport } from "../service";

export const reportTitle = z.string().trim().min(1, "title is required").max(200, "title is at most 200 characters");
export const reportBody = z.string().max(50_000, "notes are at most 50,000 characters");
export const reportRunIds = z.array(z.string().uuid("run ids must be UUIDs")).min(1, "pick at least one run").max(20, "at most 20 runs per report");

export const createReportInput = z.object({ title: reportTitle, body: reportBody.default(""), runIds: reportRunIds });

export const create = memberProcedure.input(createReportInput).mutation(({ ctx, input }) => createReport(ctx.user, input));
