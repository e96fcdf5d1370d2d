import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { memberProcedure } from "../../../trpc/init";
import { setRunRetention } from "../storage";

export const retentionInput = z.object({
  id: z.string().uuid("run id must be a UUID"),
  retainTurnsDays: z
    .number()
    .int("retainTurnsDays must be a whole number of days")
    .min(0, "retainTurnsDays must be 0 or more")
    .max(36_500, "retainTurnsDays must be at most 36500")
    .nullable()
    .describe("Archive the run's turns this many days after it finished; null keeps them"),
});
export const retentionOutput = z.object({ id: z.string(), retainTurnsDays: z.number().int().nullable(), archivedAt: z.date().nullable(), archiveUri: z.string().nullable() });

export const retention = memberProcedure
  .meta(
    rest({
      method: "PATCH",
      path: "/runs/{id}/retention",
      tag: "runs",
      access: "write",
      summary: "Set how long a run keeps its turns",
      description: "The worker's sweep archives a finished run's turns retainTurnsDays after it finished (see POST /runs/{id}/archive).",
      errors: { 403: "A viewer's token, or a member who did not launch the run", 404: "No such run" },
    }),
  )
  .input(retentionInput)
  .output(retentionOutput)
  .mutation(({ ctx, input }) => setRunRetention(input.id, ctx.user, input.retainTurnsDays));
