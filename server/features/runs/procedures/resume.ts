import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { memberProcedure } from "../../../trpc/init";
import { runDetailOutput } from "../schemas";
import { resumeRun } from "../service";

export const resumeRunInput = z.object({ id: z.string().uuid("run id must be a UUID") });

export const resume = memberProcedure
  .meta(
    rest({
      method: "POST",
      path: "/runs/{id}/resume",
      tag: "runs",
      access: "write",
      summary: "Resume a failed or cancelled run",
      description: "Re-queues the run; the worker continues after the last committed step from its saved training state.",
      errors: { 403: "A viewer's token, or a member who did not launch the run (only its launcher or an admin may)", 404: "No such run", 409: "The run is not failed or cancelled" },
    }),
  )
  .input(resumeRunInput)
  .output(runDetailOutput)
  .mutation(({ ctx, input }) => resumeRun(input.id, ctx.user));
