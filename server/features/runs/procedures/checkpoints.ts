import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { listCheckpoints } from "../service";
import { sharedRead } from "../../../lib/live-reads";

export const checkpointsInput = z.object({ runId: z.string().uuid("run id must be a UUID") });

export const checkpoints = authedProcedure
  .input(checkpointsInput)
  .query(({ input }) => sharedRead("runs.checkpoints", input, [`checkpoint:${input.runId}`], () => listCheckpoints(input.runId)));
