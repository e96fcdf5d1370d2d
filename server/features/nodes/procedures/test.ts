import { z } from "zod";
import { memberProcedure } from "../../../trpc/init";
import { testNode } from "../service";

export const testNodeInput = z.object({ id: z.string().uuid() });

export const test = memberProcedure.input(testNodeInput).mutation(({ ctx, input }) => testNode(input.id, ctx.user));
