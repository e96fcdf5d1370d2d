import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { listTurns } from "../service";

export const turnsInput = z.object({
  trajectoryId: z.string().uuid("trajectory id must be a UUID"),
  /** Turn index the page starts at (named `cursor` for infinite queries). */
  cursor: z.number().int().min(0).nullish(),
  limit: z.number().int().min(1).max(200).default(60),
});

export const turns = authedProcedure.input(turnsInput).query(({ input }) => listTurns(input.trajectoryId, input.cursor ?? 0, input.limit));
