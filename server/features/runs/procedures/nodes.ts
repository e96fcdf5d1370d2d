import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { runNodeHealth } from "../service";
import { sharedRead } from "../../../lib/live-reads";

export const runNodesInput = z.object({ runId: z.string().uuid("run id must be a UUID") });

export const nodes = authedProcedure.input(runNodesInput).query(({ input }) => sharedRead("runs.nodes", input, ["node:*"], () => runNodeHealth(input.runId)));
