import { adminProcedure } from "../../../trpc/init";
import { listUsers } from "../service";

export const list = adminProcedure.query(() => listUsers());
