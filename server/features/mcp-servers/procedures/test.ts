import { z } from "zod";
import { adminProcedure } from "../../../trpc/init";
import { rest } from "../../../trpc/rest";
import { mcpServerRefSchema } from "../ref";
import { mcpServerTestOutput } from "../schemas";
import { testMcpServer } from "../service";

export const testMcpServerInput = z.object({ id: mcpServerRefSchema });

/** Starts the server here, lists its tools and records them with its health. */
export const test = adminProcedure
  .meta(
    rest({ method: "POST", path: "/mcp-servers/{id}/test", tag: "mcp-servers", access: "admin", summary: "Start an MCP server, list its tools and record them with its health", description: "`id` is the server's id or its name. A failed start is an answer with `ok: false` and the reason, not an error.", errors: { 404: "No such server" } }),
  )
  .input(testMcpServerInput)
  .output(mcpServerTestOutput)
  .mutation(({ input }) => testMcpServer(input.id));
