import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { listReports } from "../service";

export const listReportsInput = z.object({
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().uuid().nullish(),
});

export const list = authedProcedure.input(listReportsInput).query(({ input }) => listReports(input));
