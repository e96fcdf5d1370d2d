import { z } from "zod";
import { memberProcedure } from "../../../trpc/init";
import { cancelRun } from "../service";

export const cancelRunInput = z.object({ id: z.string().uuid("run id must be a UUID") });

export const cancel = memberProcedure.input(cancelRunInput).mutation(({ ctx, input }) => cancelRun(input.id, ctx.user));
