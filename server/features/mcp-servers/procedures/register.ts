import { z } from "zod";
import { mcpLaunchSchema, mcpServerNameSchema, mcpServerSettingsSchema } from "../../../../contracts/mcp";
import { adminProcedure } from "../../../trpc/init";
import { rest } from "../../../trpc/rest";
import { mcpServerTestOutput } from "../schemas";
import { registerMcpServer } from "../service";

export const registerMcpServerInput = z.object({
  name: mcpServerNameSchema,
  description: z.string().trim().max(2000).default(""),
  /** A stdio command (program, arguments, working directory, environment) or a streamable-HTTP URL with headers. */
  launch: mcpLaunchSchema,
  settings: mcpServerSettingsSchema.default({}),
});

/** Admins only: a registered command runs on the worker (and here, for the test) with the worker's OS user. */
export const register = adminProcedure
  .meta(
    rest({
      method: "POST",
      path: "/mcp-servers",
      tag: "mcp-servers",
      access: "admin",
      summary: "Register an MCP server (a stdio command or a streamable-HTTP URL) and test it",
      description:
        "Stores the server (secret environment values and header values encrypted, never returned), then starts it once and lists its tools. A server that fails its test stays registered, marked unhealthy: the answer has `ok: false` and the reason in `error`. In stdio arguments, working directory and environment values, `${EPISODE_DIR}` is each episode's own scratch directory.",
      errors: { 409: "A server with this name exists" },
    }),
  )
  .input(registerMcpServerInput)
  .output(mcpServerTestOutput)
  .mutation(({ input, ctx }) => registerMcpServer(input, ctx.user.id));
