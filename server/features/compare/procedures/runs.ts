import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { compareRuns } from "../service";

export const compareRunsInput = z.object({
  runIds: z.array(z.string().uuid("run ids must be UUIDs")).min(1, "pick at least one run").max(8, "compare at most 8 runs at once"),
});

export const runs = authedProcedure.input(compareRunsInput).query(({ input }) => compareRuns(input.runIds));
