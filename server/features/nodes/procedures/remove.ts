import { z } from "zod";
import { memberProcedure } from "../../../trpc/init";
import { removeNode } from "../service";

export const removeNodeInput = z.object({ id: z.string().uuid() });

export const remove = memberProcedure.input(removeNodeInput).mutation(({ ctx, input }) => removeNode(input.id, ctx.user));
