import { authedProcedure } from "../../../trpc/init";
import { listNodes } from "../service";

export const list = authedProcedure.query(({ ctx }) => listNodes(ctx.user));
