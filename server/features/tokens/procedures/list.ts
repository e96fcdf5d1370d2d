import { sessionProcedure } from "../../../trpc/init";
import { listTokens } from "../service";

export const list = sessionProcedure.query(({ ctx }) => listTokens(ctx.user.id));
