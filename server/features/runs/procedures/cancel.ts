import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { memberProcedure } from "../../../trpc/init";
import { runDetailOutput } from "../schemas";
import { cancelRun } from "../service";

export const cancelRunInput = z.object({ id: z.string().uuid("run id must be a UUID") });

export const cancel = memberProcedure
  .meta(
    rest({
      method: "POST",
      path: "/runs/{id}/cancel",
      tag: "runs",
      access: "write",
      summary: "Cancel a run",
      description: "A queued run is cancelled at once; a running run stops at its worker's next heartbeat.",
      errors: { 403: "A viewer's token, or a member who did not launch the run (only its launcher or an admin may)", 404: "No such run", 409: "The run already finished" },
    }),
  )
  .input(cancelRunInput)
  .output(runDetailOutput)
  .mutation(({ ctx, input }) => cancelRun(input.id, ctx.user));
