import { z } from "zod";
import { mcpServerSettingsSchema } from "../../../../contracts/mcp";
import { adminProcedure } from "../../../trpc/init";
import { rest } from "../../../trpc/rest";
import { mcpServerRefSchema } from "../ref";
import { mcpServerOutput } from "../schemas";
import { updateMcpServer } from "../service";

export const updateMcpServerInput = z.object({
  id: mcpServerRefSchema,
  description: z.string().trim().max(2000).optional(),
  settings: mcpServerSettingsSchema.optional(),
});

export const update = adminProcedure
  .meta(
    rest({ method: "PATCH", path: "/mcp-servers/{id}", tag: "mcp-servers", access: "admin", summary: "Change an MCP server's description, limits or tool selection", description: "`id` is the server's id or its name. `settings` replaces the stored settings whole (omitted limits take their defaults). The launch itself is changed by removing and registering the server again.", errors: { 404: "No such server" } }),
  )
  .input(updateMcpServerInput)
  .output(mcpServerOutput)
  .mutation(({ input }) => updateMcpServer(input.id, input));
