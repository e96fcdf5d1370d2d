import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { studyKeys } from "../service";

export const studyKeysInput = z.object({ id: z.string().uuid("study id must be a UUID") });

export const keys = authedProcedure.input(studyKeysInput).query(({ input }) => studyKeys(input.id));
