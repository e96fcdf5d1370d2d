import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { getReport } from "../service";

export const getReportInput = z.object({ id: z.string().uuid("report id must be a UUID") });

export const get = authedProcedure.input(getReportInput).query(({ input }) => getReport(input.id));
