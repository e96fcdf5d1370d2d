import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { neighbours as findNeighbours } from "../service";
import { trajectoryFiltersInput } from "./filters";

export const neighboursInput = trajectoryFiltersInput.extend({ id: z.string().uuid("trajectory id must be a UUID") });

export const neighbours = authedProcedure.input(neighboursInput).query(({ input }) => findNeighbours(input));
