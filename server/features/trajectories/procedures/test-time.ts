import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { getTestTimeEpisode } from "../test-time";

export const testTimeEpisodeInput = z.object({
  /** The committed trajectory or one of its private attempts. */
  id: z.string().uuid("trajectory id must be a UUID"),
});

export const testTimeEpisode = authedProcedure.input(testTimeEpisodeInput).query(({ input }) => getTestTimeEpisode(input.id));
