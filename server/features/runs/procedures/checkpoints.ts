import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { checkpointOutput } from "../schemas";
import { listCheckpoints } from "../service";
import { sharedRead } from "../../../lib/live-reads";

export const checkpointsInput = z.object({ runId: z.string().uuid("run id must be a UUID") });

export const checkpoints = authedProcedure
  .meta(rest({ method: "GET", path: "/runs/{runId}/checkpoints", tag: "runs", access: "read", summary: "A training run's checkpoints, newest first, with their evaluations" }))
  .input(checkpointsInput)
  .output(z.array(checkpointOutput))
  .query(({ input }) => sharedRead("runs.checkpoints", input, [`checkpoint:${input.runId}`], () => listCheckpoints(input.runId)));
