import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { listLogs } from "../service";

export const runLogsInput = z.object({
  runId: z.string().uuid(),
  /** Return lines after this log id (string, since ids are 64-bit). */
  after: z.string().regex(/^\d+$/).nullish(),
  limit: z.number().int().min(1).max(2000).default(500),
});

export const logs = authedProcedure
  .input(runLogsInput)
  .query(async ({ input }) => {
    const rows = await listLogs(input.runId, input.after ? BigInt(input.after) : null, input.limit);
    return rows.map((r) => ({ ...r, id: r.id.toString() }));
  });
