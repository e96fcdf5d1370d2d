import { authedProcedure } from "../../../trpc/init";
import { listTokens } from "../service";

export const list = authedProcedure.query(({ ctx }) => listTokens(ctx.user.id));
