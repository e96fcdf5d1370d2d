import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { getRun } from "../service";
import { sharedRead } from "../../../lib/live-reads";

export const getRunInput = z.object({ id: z.string().uuid("run id must be a UUID") });

// Shared by every open page of the run until the run changes (server/lib/live-reads.ts).
export const get = authedProcedure.input(getRunInput).query(({ input }) => sharedRead("runs.get", input, [`run:${input.id}`], () => getRun(input.id)));
