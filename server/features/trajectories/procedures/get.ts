import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { getTrajectory } from "../service";

export const getTrajectoryInput = z.object({
  id: z.string().uuid("trajectory id must be a UUID"),
  turnsFrom: z.number().int().min(0).default(0),
  turnsLimit: z.number().int().min(1).max(200).default(60),
});

export const get = authedProcedure.input(getTrajectoryInput).query(({ input }) => getTrajectory(input));
