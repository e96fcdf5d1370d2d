/**
 * Output schemas of the MCP server procedures (mirror `mcpServerSelect` and `publicView` in service.ts; a
 * field missing here is stripped). The launch is the public one: a secret environment value is `null`,
 * a header has its name only, so an output can never carry a secret even if the service leaked one.
 */
import { z } from "zod";
import { mcpServerSettingsSchema, mcpToolSchema } from "../../../contracts/mcp";
import { storedEnum } from "../../trpc/rest";

const publicLaunchOutput = z
  .discriminatedUnion("transport", [
    z.object({
      transport: z.literal("stdio"),
      command: z.string().describe("The program, run without a shell"),
      args: z.array(z.string()),
      cwd: z.string().nullable().describe("Working directory (null: the episode's scratch directory)"),
      env: z
        .array(z.object({ name: z.string(), secret: z.boolean(), value: z.string().nullable().describe("null for a secret: stored encrypted, never returned") }))
        .describe("The server's environment as the admin configured it"),
    }),
    z.object({
      transport: z.literal("http"),
      url: z.string().describe("The streamable-HTTP endpoint"),
      headers: z.array(z.object({ name: z.string() })).describe("Header names only: their values are stored encrypted and never returned"),
    }),
  ])
  .openapi({ ref: "McpLaunch" });

export const mcpServerOutput = z
  .object({
    id: z.string().uuid(),
    name: z.string().describe("Run configs refer to it as mcp:<name>/<dataset>"),
    description: z.string(),
    launch: publicLaunchOutput,
    settings: mcpServerSettingsSchema.nullable().describe("Limits and tool selection (null: the stored settings are unreadable; register the server again)"),
    tools: z.array(mcpToolSchema.openapi({ ref: "McpTool" })).describe("The tools the server listed at its last test: name, description, JSON schemas"),
    serverInfo: z.object({ name: z.string(), version: z.string() }).nullable().describe("What the server called itself at its last test"),
    health: storedEnum(["unknown", "healthy", "unhealthy"]),
    healthDetail: z.string().nullable().describe("Why the last test failed: what the server said (its secrets redacted) for admins, a note that it failed for everyone else"),
    checkedAt: z.date().nullable(),
    createdAt: z.date(),
  })
  .openapi({ ref: "McpServer" });

const elapsed = z.number().int().describe("Milliseconds the test took");

export const mcpServerTestOutput = z
  .discriminatedUnion("ok", [
    z.object({ ok: z.literal(true), tools: z.number().int().describe("Tools the server lists"), ms: elapsed, server: mcpServerOutput }),
    z.object({ ok: z.literal(false), error: z.string().describe("Why the server could not be started or listed"), ms: elapsed, server: mcpServerOutput }),
  ])
  .openapi({ ref: "McpServerTest" });

export const mcpServerRemovedOutput = z.object({ id: z.string().uuid() });
