import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { facets as runFacets } from "../service";

export const facetsInput = z.object({
  runId: z.string().uuid("run id must be a UUID"),
  maxInstances: z.number().int().min(1).max(5000).default(1000),
});

export const facets = authedProcedure.input(facetsInput).query(({ input }) => runFacets(input.runId, input.maxInstances));
