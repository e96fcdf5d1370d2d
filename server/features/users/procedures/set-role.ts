import { z } from "zod";
import { roles } from "../../../auth";
import { adminProcedure } from "../../../trpc/init";
import { setRole as setRoleService } from "../service";

export const setRoleInput = z.object({ userId: z.string().min(1), role: z.enum(roles) });

export const setRole = adminProcedure.input(setRoleInput).mutation(({ input }) => setRoleService(input.userId, input.role));
