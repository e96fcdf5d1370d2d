import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { createToken } from "../service";

export const createTokenInput = z.object({ name: z.string().trim().min(1, "name is required").max(100) });

/** Tokens act as their owner; minting one needs a browser session, not another token. */
export const create = authedProcedure.input(createTokenInput).mutation(({ ctx, input }) => createToken(ctx.user.id, input.name));
