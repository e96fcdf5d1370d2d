import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { memberProcedure } from "../../../trpc/init";
import { archiveRun, restoreRun } from "../storage";

export const archiveRunInput = z.object({ id: z.string().uuid("run id must be a UUID") });
export const archiveRunOutput = z.object({
  runId: z.string(),
  turns: z.number().int().describe("Turns written to the archive and dropped from the database"),
  trajectories: z.number().int(),
  bytes: z.number().int().describe("Size of the gzip JSON Lines file"),
  sha256: z.string(),
  uri: z.string().describe("Where the archive file lives"),
});

export const archive = memberProcedure
  .meta(
    rest({
      method: "POST",
      path: "/runs/{id}/archive",
      tag: "runs",
      access: "write",
      summary: "Archive a finished run's turns",
      description:
        "Writes the run's turns to gzip JSON Lines in the archive store (the S3 bucket ENVACE_ARCHIVE_S3_BUCKET, else the folder ENVACE_ARCHIVE_DIR), reads the file back and verifies it, then drops them from the database. Trajectories, metrics and steps stay; restore brings the turns back.",
      errors: { 403: "A viewer's token, or a member who did not launch the run", 404: "No such run", 409: "The run is not finished, or already archived" },
    }),
  )
  .input(archiveRunInput)
  .output(archiveRunOutput)
  .mutation(({ ctx, input }) => archiveRun(input.id, ctx.user));

export const restoreRunOutput = z.object({ runId: z.string(), turns: z.number().int().describe("Turns loaded back from the archive") });

export const restore = memberProcedure
  .meta(
    rest({
      method: "POST",
      path: "/runs/{id}/restore",
      tag: "runs",
      access: "write",
      summary: "Restore an archived run's turns",
      description: "Checks the archive against its manifest (SHA-256, turn count) and loads the turns back in one transaction.",
      errors: { 403: "A viewer's token, or a member who did not launch the run", 404: "No such run", 409: "The run is not archived, or its archive is missing or does not match its manifest" },
    }),
  )
  .input(archiveRunInput)
  .output(restoreRunOutput)
  .mutation(({ ctx, input }) => restoreRun(input.id, ctx.user));
