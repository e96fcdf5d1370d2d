import { z } from "zod";
import { runStatuses } from "../../../../contracts/jobs";
import { authedProcedure } from "../../../trpc/init";
import { listRuns } from "../service";
import { sharedRead } from "../../../lib/live-reads";

export const listRunsInput = z.object({
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().uuid().nullish(),
  search: z.string().max(200).optional(),
  status: z.array(z.enum(runStatuses)).optional(),
  kind: z.enum(["train", "eval"]).optional(),
  tag: z.string().max(50).optional(),
});

// Shared by every open runs table with the same filters until any run changes (server/lib/live-reads.ts).
export const list = authedProcedure.input(listRunsInput).query(({ input }) => sharedRead("runs.list", input, ["run:*"], () => listRuns(input)));
