import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { bfclResults } from "../bfcl";

export const bfclInput = z.object({ runId: z.string().uuid("run id must be a UUID") });

/** The run's latest BFCL evaluation: the paper's columns, per-category scores and notes (null when it has none). */
export const bfcl = authedProcedure.input(bfclInput).query(({ input }) => bfclResults(input.runId));
