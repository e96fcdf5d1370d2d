import { z } from "zod";
import { adminProcedure } from "../../../trpc/init";
import { testMcpServer } from "../service";

export const testMcpServerInput = z.object({ id: z.string().uuid() });

/** Starts the server here, lists its tools and records them with its health. */
export const test = adminProcedure.input(testMcpServerInput).mutation(({ input }) => testMcpServer(input.id));
