import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { mcpServerRefSchema } from "../ref";
import { mcpServerOutput } from "../schemas";
import { getMcpServer } from "../service";

export const getMcpServerInput = z.object({ id: mcpServerRefSchema });

/** One server with its tools (names, descriptions, JSON schemas), by id or name; secret values never included. */
export const get = authedProcedure
  .meta(
    rest({
      method: "GET",
      path: "/mcp-servers/{id}",
      tag: "mcp-servers",
      access: "read",
      summary: "Read one MCP server with its tools",
      description: "`id` is the server's id or its name. `tools` are what the server listed at its last test (POST /mcp-servers/{id}/test lists them again).",
      errors: { 404: "No such server" },
    }),
  )
  .input(getMcpServerInput)
  .output(mcpServerOutput)
  .query(({ ctx, input }) => getMcpServer(input.id, ctx.user));
