import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { listLogs } from "../service";
import { sharedRead } from "../../../lib/live-reads";

export const runLogsInput = z.object({
  runId: z.string().uuid(),
  /** Return lines after this log id (string, since ids are 64-bit). */
  after: z.string().regex(/^\d+$/).nullish(),
  limit: z.number().int().min(1).max(2000).default(500),
});

export const logs = authedProcedure
  .input(runLogsInput)
  // Viewers in step with the run ask for the same tail: shared until the next lines (server/lib/live-reads.ts).
  .query(({ input }) =>
    sharedRead("runs.logs", input, [`log:${input.runId}`], async () => {
      const rows = await listLogs(input.runId, input.after ? BigInt(input.after) : null, input.limit);
      return rows.map((r) => ({ ...r, id: r.id.toString() }));
    }),
  );
