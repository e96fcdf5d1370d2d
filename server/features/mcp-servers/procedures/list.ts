import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { mcpServerOutput } from "../schemas";
import { listMcpServers } from "../service";

/** Every registered server with its tools; secret values never included. */
export const list = authedProcedure
  .meta(rest({ method: "GET", path: "/mcp-servers", tag: "mcp-servers", access: "read", summary: "List registered MCP servers with their tools and health" }))
  .input(z.void())
  .output(z.array(mcpServerOutput))
  .query(({ ctx }) => listMcpServers(ctx.user));
