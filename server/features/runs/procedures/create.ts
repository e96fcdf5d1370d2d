import { z } from "zod";
import { memberProcedure } from "../../../trpc/init";
import { createRun } from "../service";

export const createRunInput = z.object({
  name: z.string().trim().min(1, "name is required").max(200),
  tags: z.array(z.string().trim().min(1).max(50)).max(20).default([]),
  /** Validated by the shared run-config schema in the service (errors name the field). */
  config: z.unknown(),
  parentRunId: z.string().uuid().optional(),
});

export const create = memberProcedure.input(createRunInput).mutation(({ ctx, input }) => createRun(ctx.user.id, input, ctx.user.role));
