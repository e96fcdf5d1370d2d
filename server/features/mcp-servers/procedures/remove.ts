import { z } from "zod";
import { adminProcedure } from "../../../trpc/init";
import { rest } from "../../../trpc/rest";
import { mcpServerRefSchema } from "../ref";
import { mcpServerRemovedOutput } from "../schemas";
import { removeMcpServer } from "../service";

export const removeMcpServerInput = z.object({ id: mcpServerRefSchema });

export const remove = adminProcedure
  .meta(
    rest({ method: "DELETE", path: "/mcp-servers/{id}", tag: "mcp-servers", access: "admin", summary: "Remove an MCP server", description: "`id` is the server's id or its name.", errors: { 404: "No such server", 409: "A queued or running run uses the server" } }),
  )
  .input(removeMcpServerInput)
  .output(mcpServerRemovedOutput)
  .mutation(({ input }) => removeMcpServer(input.id));
