import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { listInstances } from "../service";

export const listInstancesInput = z.object({
  datasetId: z.string().uuid("dataset id must be a UUID"),
  split: z.enum(["train", "test"]).optional(),
  limit: z.number().int().min(1).max(500).default(100),
  cursor: z.string().max(300).nullish(),
});

export const instances = authedProcedure.input(listInstancesInput).query(({ input }) => listInstances(input));
