import { z } from "zod";
import { mcpLaunchSchema, mcpServerNameSchema, mcpServerSettingsSchema } from "../../../../contracts/mcp";
import { adminProcedure } from "../../../trpc/init";
import { registerMcpServer } from "../service";

export const registerMcpServerInput = z.object({
  name: mcpServerNameSchema,
  description: z.string().trim().max(2000).default(""),
  /** A stdio command (program, arguments, working directory, environment) or a streamable-HTTP URL with headers. */
  launch: mcpLaunchSchema,
  settings: mcpServerSettingsSchema.default({}),
});

/** Admins only: a registered command runs on the worker (and here, for the test) with the worker's OS user. */
export const register = adminProcedure.input(registerMcpServerInput).mutation(({ input, ctx }) => registerMcpServer(input, ctx.user.id));
