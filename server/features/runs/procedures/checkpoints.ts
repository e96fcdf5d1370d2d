import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { listCheckpoints } from "../service";

export const checkpointsInput = z.object({ runId: z.string().uuid("run id must be a UUID") });

export const checkpoints = authedProcedure.input(checkpointsInput).query(({ input }) => listCheckpoints(input.runId));
