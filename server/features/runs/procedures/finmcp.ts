import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { finmcpResults } from "../finmcp";

export const finmcpInput = z.object({ runId: z.string().uuid("run id must be a UUID") });

/** The run's latest FinMCP-Bench evaluation as Table 2's row, with its per-group blocks (null for a run that is not FinMCP). */
export const finmcp = authedProcedure.input(finmcpInput).query(({ input }) => finmcpResults(input.runId));
