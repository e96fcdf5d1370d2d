import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { rawTrajectory } from "../service";

export const rawInput = z.object({ id: z.string().uuid("trajectory id must be a UUID") });

export const raw = authedProcedure.input(rawInput).query(({ input }) => rawTrajectory(input.id));
