import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { getDataset } from "../service";

export const getDatasetInput = z.object({ id: z.string().uuid("dataset id must be a UUID") });

export const get = authedProcedure.input(getDatasetInput).query(({ input }) => getDataset(input.id));
