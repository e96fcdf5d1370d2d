import { z } from "zod";
import { sessionProcedure } from "../../../trpc/init";
import { revokeToken } from "../service";

export const revokeTokenInput = z.object({ id: z.string().uuid() });

export const revoke = sessionProcedure.input(revokeTokenInput).mutation(({ ctx, input }) => revokeToken(ctx.user.id, input.id));
