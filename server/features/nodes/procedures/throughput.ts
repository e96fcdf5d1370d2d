import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { nodeThroughput } from "../service";

export const nodeThroughputInput = z.object({
  node: z.string().min(1).max(100),
  model: z.string().min(1).max(200).optional(),
});

/** The node's recent pace, measured from committed steps (the new-run form's time estimate). */
export const throughput = authedProcedure.input(nodeThroughputInput).query(({ input }) => nodeThroughput(input.node, input.model));
