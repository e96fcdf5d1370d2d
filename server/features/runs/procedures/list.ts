import { z } from "zod";
import { runStatuses } from "../../../../contracts/jobs";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { runPageOutput } from "../schemas";
import { listRuns } from "../service";
import { shareResult } from "../../../lib/live-reads";

export const listRunsInput = z.object({
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().uuid().nullish().describe("nextCursor of the previous page"),
  search: z.string().max(200).optional().describe("Case-insensitive substring of the run name"),
  // A single ?status=running arrives as a string over REST; a repeated one as an array.
  status: z
    .preprocess((v) => (typeof v === "string" ? [v] : v), z.array(z.enum(runStatuses)))
    .optional()
    .describe("Only runs in these statuses (repeat the parameter for several)"),
  kind: z.enum(["train", "eval"]).optional(),
  tag: z.string().max(50).optional(),
});

// Shared by every open runs table with the same filters until any run changes (server/lib/live-reads.ts).
export const list = authedProcedure
  .meta(rest({ method: "GET", path: "/runs", tag: "runs", access: "read", summary: "List runs, newest first (keyset pages)" }))
  .input(listRunsInput)
  .use(({ input, next }) => shareResult("runs.list", input, ["run:*"], () => next()))
  .output(runPageOutput)
  .query(({ input }) => listRuns(input));
