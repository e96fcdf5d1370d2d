/**
 * MCP servers as environments: what an admin registers (a stdio command or a streamable-HTTP URL),
 * the per-server limits and tool selection, and the `mcp:<server>/<dataset>` reference a run config
 * uses. One set of schemas for the API, the page and the worker.
 */
import { z } from "zod";

/** Server names: referenced from run configs as mcp:<name>/<dataset>. */
export const MCP_SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const mcpServerNameSchema = z.string().trim().regex(MCP_SERVER_NAME, "lowercase letters, digits, - and _ (max 63)");

/** `mcp:<server>/<dataset id or name>` — the tasks of an imported dataset, run against a registered MCP server. */
export const MCP_DATASET_REF = /^mcp:([a-z0-9][a-z0-9_-]{0,62})\/([A-Za-z0-9_-]{1,100})$/;

export function parseMcpDatasetRef(ref: string): { server: string; dataset: string } | null {
  const m = MCP_DATASET_REF.exec(ref);
  return m ? { server: m[1]!, dataset: m[2]! } : null;
}

/**
 * Replaced, in a stdio server's arguments, working directory and environment values, by the episode's
 * own scratch directory (fresh per episode, removed after it): e.g. `MEMORY_FILE_PATH=${EPISODE_DIR}/memory.jsonl`.
 */
export const EPISODE_DIR_PLACEHOLDER = "${EPISODE_DIR}";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

export const mcpEnvEntrySchema = z.object({
  name: z.string().trim().regex(ENV_NAME, "an environment variable name: letters, digits and _, not starting with a digit"),
  value: z.string().max(16_384),
  /** Stored encrypted (like node API keys) and never shown again. */
  secret: z.boolean().default(false),
});

export const mcpHeaderSchema = z.object({
  name: z.string().trim().regex(HEADER_NAME, "an HTTP header name"),
  /** Header values are stored encrypted (they usually carry credentials) and never shown again. */
  value: z.string().max(16_384),
});

function uniqueNames(entries: { name: string }[], ctx: z.RefinementCtx, what: string, caseInsensitive = false) {
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    const key = caseInsensitive ? e.name.toLowerCase() : e.name;
    if (seen.has(key)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, "name"], message: `${what} ${e.name} is given twice` });
    seen.add(key);
  });
}

export const mcpStdioLaunchSchema = z.object({
  transport: z.literal("stdio"),
  /** The program, run without a shell; looked up on the server's PATH unless it is a path. */
  command: z.string().trim().min(1, "command is required").max(4096),
  args: z.array(z.string().max(4096)).max(200).default([]),
  /** Working directory; empty = the episode's scratch directory. */
  cwd: z
    .string()
    .trim()
    .max(4096)
    .optional()
    .refine((d) => d === undefined || d === "" || d.startsWith("/") || d.startsWith(EPISODE_DIR_PLACEHOLDER), `an absolute path (or one under ${EPISODE_DIR_PLACEHOLDER})`),
  env: z.array(mcpEnvEntrySchema).max(200).default([]).superRefine((e, ctx) => uniqueNames(e, ctx, "variable")),
});

export const mcpHttpLaunchSchema = z.object({
  transport: z.literal("http"),
  /** The streamable-HTTP endpoint, e.g. http://tools.internal:8080/mcp. */
  url: z
    .string()
    .trim()
    .refine((u) => {
      try {
        return ["http:", "https:"].includes(new URL(u).protocol);
      } catch {
        return false;
      }
    }, "must be an http(s) URL like http://host:8080/mcp"),
  headers: z.array(mcpHeaderSchema).max(50).default([]).superRefine((h, ctx) => uniqueNames(h, ctx, "header", true)),
});

export const mcpLaunchSchema = z.discriminatedUnion("transport", [mcpStdioLaunchSchema, mcpHttpLaunchSchema]);
export type McpLaunchInput = z.input<typeof mcpLaunchSchema>;
export type McpLaunch = z.infer<typeof mcpLaunchSchema>;

export const MAX_RESULT_BYTES_LIMIT = 64 * 1024 * 1024;

export const mcpLimitsSchema = z
  .object({
    startTimeoutS: z.number().min(1).max(600).default(30).describe("Seconds a server may take to start and answer initialize before the episode ends with START_FAILED"),
    callTimeoutS: z.number().min(1).max(3600).default(60).describe("Seconds one tool call may take before the episode ends with TIMEOUT (the server is then stopped)"),
    maxResultBytes: z
      .number()
      .int()
      .min(1024)
      .max(MAX_RESULT_BYTES_LIMIT)
      .default(1024 * 1024)
      .describe("Largest message the server may send (bytes); a larger result ends the episode with RESULT_TOO_LARGE"),
    maxSessions: z
      .number()
      .int()
      .min(1)
      .max(256)
      .default(8)
      .describe("Episodes of this server running at once in one worker, each with its own process (stdio) or session (HTTP); more wait for a slot"),
  })
  .strict();
export type McpLimits = z.infer<typeof mcpLimitsSchema>;

export const mcpServerSettingsSchema = z
  .object({
    limits: mcpLimitsSchema.default({}),
    /** Offer only these tools to the policy; empty = every tool the server lists. */
    tools: z.array(z.string().trim().min(1).max(200)).max(1000).default([]).describe("Offer only these tools to the policy (empty: every tool the server lists)"),
  })
  .strict();
export type McpServerSettings = z.infer<typeof mcpServerSettingsSchema>;

/** Parse stored settings (the column is written through this schema; old rows get today's defaults). */
export function parseMcpServerSettings(value: unknown): McpServerSettings {
  return mcpServerSettingsSchema.parse(value ?? {});
}

/** A tool as tools/list describes it (the parts a run uses), validated where it is read back. */
export const mcpToolSchema = z
  .object({
    name: z.string().min(1),
    title: z.string().optional(),
    description: z.string().optional(),
    inputSchema: z.object({ type: z.literal("object") }).passthrough(),
    outputSchema: z.object({ type: z.literal("object") }).passthrough().optional(),
  })
  .passthrough();
export type McpToolInfo = z.infer<typeof mcpToolSchema>;
