import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { erroredEpisodes } from "../service";

export const erroredInput = z.object({ runId: z.string().uuid("run id must be a UUID") });

/** How many of a run's episodes errored and why (the run page's "left out" card). */
export const errored = authedProcedure.input(erroredInput).query(({ input }) => erroredEpisodes(input.runId));
