/** How the API names one registered server: its id, or (for scripts and the CLI) its name. */
import { z } from "zod";
import { MCP_SERVER_NAME } from "../../../contracts/mcp";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const mcpServerRefSchema = z
  .string()
  .trim()
  .refine((s) => UUID.test(s) || MCP_SERVER_NAME.test(s), "an MCP server's id or its name (lowercase letters, digits, - and _)")
  .describe("The server's id or its name");

/** The Prisma filter for a ref: a UUID-shaped ref may be an id or (unusually) a name; anything else is a name. */
export function mcpServerWhere(ref: string): { id: string } | { name: string } | { OR: ({ id: string } | { name: string })[] } {
  return UUID.test(ref) ? { OR: [{ id: ref }, { name: ref }] } : { name: ref };
}
