import { z } from "zod";
import { publicProcedure } from "../../../trpc/init";
import { readShared } from "../service";

export const sharedReportInput = z.object({
  token: z.string().min(20, "malformed share token").max(200, "malformed share token").regex(/^[A-Za-z0-9_-]+$/, "malformed share token"),
});

/** The one public read: a share token opens exactly its report (token check in the reports service). */
export const shared = publicProcedure.input(sharedReportInput).query(({ input }) => readShared(input.token));
