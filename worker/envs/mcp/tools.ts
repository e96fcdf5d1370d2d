/** MCP tools (tools/list) → the run's tool schemas (OpenAI function tools), and the registered selection. */
import type { McpToolInfo } from "../../../contracts/mcp";
import type { ToolSchema } from "../../engine/io";

/** A tool as the policy sees it: name, description (else its title) and the input JSON schema as given. */
export function toolSchemaOf(tool: McpToolInfo): ToolSchema {
  const { type: _type, properties, required, $schema: _schema, ...rest } = tool.inputSchema as Record<string, unknown>;
  return {
    type: "function",
    function: {
      name: tool.name,
      description: tool.description ?? tool.title ?? "",
      parameters: {
        type: "object",
        properties: properties && typeof properties === "object" ? (properties as Record<string, unknown>) : {},
        ...(Array.isArray(required) ? { required: required as string[] } : {}),
        ...rest,
      },
    },
  };
}

/** The tools a run offers: the registered selection in the server's order (all when none), or the names the server lacks. */
export function selectTools(tools: McpToolInfo[], allow: string[]): { ok: true; tools: McpToolInfo[] } | { ok: false; missing: string[] } {
  if (allow.length === 0) return { ok: true, tools };
  const names = new Set(tools.map((t) => t.name));
  const missing = allow.filter((n) => !names.has(n));
  if (missing.length) return { ok: false, missing };
  const wanted = new Set(allow);
  return { ok: true, tools: tools.filter((t) => wanted.has(t.name)) };
}
