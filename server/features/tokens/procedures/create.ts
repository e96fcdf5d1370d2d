import { z } from "zod";
import { sessionProcedure } from "../../../trpc/init";
import { createToken } from "../service";

export const createTokenInput = z.object({ name: z.string().trim().min(1, "name is required").max(100) });

/** Tokens act as their owner; minting one needs a browser session, not another token (or a leaked token would outlive its revocation). */
export const create = sessionProcedure.input(createTokenInput).mutation(({ ctx, input }) => createToken(ctx.user.id, input.name));
