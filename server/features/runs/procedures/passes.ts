import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { evaluationPasses } from "../passes";

export const passesInput = z.object({ runId: z.string().uuid("run id must be a UUID") });

/** An evaluation's committed passes (repeats) with their headline metrics and the spread over them. */
export const passes = authedProcedure.input(passesInput).query(({ input }) => evaluationPasses(input.runId));
