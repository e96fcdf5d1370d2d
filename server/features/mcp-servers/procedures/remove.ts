import { z } from "zod";
import { adminProcedure } from "../../../trpc/init";
import { removeMcpServer } from "../service";

export const removeMcpServerInput = z.object({ id: z.string().uuid() });

export const remove = adminProcedure.input(removeMcpServerInput).mutation(({ input }) => removeMcpServer(input.id));
