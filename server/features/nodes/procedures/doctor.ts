import { z } from "zod";
import { memberProcedure } from "../../../trpc/init";
import { doctorNode } from "../service";

export const doctorNodeInput = z.object({
  id: z.string().uuid(),
  /** The model to check; absent: the models the node's settings name, else the one it serves. */
  model: z.string().trim().min(1).max(200).optional(),
});

/** Runs the node doctor now and records its report (the same check the worker runs before every run). */
export const doctor = memberProcedure.input(doctorNodeInput).mutation(({ ctx, input }) => doctorNode(input.id, input.model, ctx.user));
