import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { listTrajectories } from "../service";
import { trajectoryFiltersInput } from "./filters";

export const listTrajectoriesInput = trajectoryFiltersInput.extend({
  limit: z.number().int().min(1).max(500).default(100),
  cursor: z.string().uuid().nullish(),
});

export const list = authedProcedure.input(listTrajectoriesInput).query(({ input }) => listTrajectories(input));
