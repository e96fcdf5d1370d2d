import { z } from "zod";
import { runStatuses } from "../../../../contracts/jobs";
import { authedProcedure } from "../../../trpc/init";
import { listRuns } from "../service";

export const listRunsInput = z.object({
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().uuid().nullish(),
  search: z.string().max(200).optional(),
  status: z.array(z.enum(runStatuses)).optional(),
  kind: z.enum(["train", "eval"]).optional(),
  tag: z.string().max(50).optional(),
});

export const list = authedProcedure.input(listRunsInput).query(({ input }) => listRuns(input));
