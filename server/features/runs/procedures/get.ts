import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { getRun } from "../service";

export const getRunInput = z.object({ id: z.string().uuid("run id must be a UUID") });

export const get = authedProcedure.input(getRunInput).query(({ input }) => getRun(input.id));
