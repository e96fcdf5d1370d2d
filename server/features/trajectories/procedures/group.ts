import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { getGroup } from "../service";

export const groupInput = z.object({
  runId: z.string().uuid("run id must be a UUID"),
  step: z.number().int().min(0),
  groupId: z.string().min(1).max(500),
  // An evaluation suite's groups have phase suite:<name>.
  phase: z.union([z.enum(["train", "eval", "private"]), z.string().regex(/^suite:[a-z0-9][a-z0-9_-]{0,39}$/)]).default("train"),
});

export const group = authedProcedure.input(groupInput).query(({ input }) => getGroup(input));
