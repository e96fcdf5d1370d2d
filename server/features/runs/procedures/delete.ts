import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { memberProcedure } from "../../../trpc/init";
import { deleteRun } from "../storage";

export const deleteRunInput = z.object({ id: z.string().uuid("run id must be a UUID") });
export const deleteRunOutput = z.object({
  id: z.string(),
  turnPartitionDropped: z.boolean().describe("The run's turns went with one DROP TABLE of its partition"),
});

export const deleteRunProcedure = memberProcedure
  .meta(
    rest({
      method: "DELETE",
      path: "/runs/{id}",
      tag: "runs",
      access: "write",
      summary: "Delete a finished run",
      description: "Deletes the run and everything it stored (steps, metrics, trajectories, turns, logs); its turns go with their partition in O(1). Archives in the archive store are kept.",
      errors: { 403: "A viewer's token, or a member who did not launch the run (only its launcher or an admin may)", 404: "No such run", 409: "The run is queued or running" },
    }),
  )
  .input(deleteRunInput)
  .output(deleteRunOutput)
  .mutation(({ ctx, input }) => deleteRun(input.id, ctx.user));
