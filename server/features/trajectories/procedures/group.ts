import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { getGroup } from "../service";

export const groupInput = z.object({
  runId: z.string().uuid("run id must be a UUID"),
  step: z.number().int().min(0),
  groupId: z.string().min(1).max(500),
  phase: z.enum(["train", "eval", "private"]).default("train"),
});

export const group = authedProcedure.input(groupInput).query(({ input }) => getGroup(input));
