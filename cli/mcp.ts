/**
 * `envace mcp …`: the pure parts — the registration body built from the command line (checked before
 * anything is sent; the server validates it again and names any field it refuses), and the text views
 * of servers and their tools.
 */
import { UsageError } from "./overrides";

/** What the API returns for a server (server/features/mcp-servers/schemas.ts), as far as the CLI reads it. */
export interface McpServer {
  id: string;
  name: string;
  description: string;
  launch:
    | { transport: "stdio"; command: string; args: string[]; cwd: string | null; env: { name: string; secret: boolean; value: string | null }[] }
    | { transport: "http"; url: string; headers: { name: string }[] };
  settings: { tools: string[]; limits: Record<string, number> } | null;
  tools: McpTool[];
  serverInfo: { name: string; version: string } | null;
  health: string;
  healthDetail: string | null;
  checkedAt: string | null;
}

export interface McpTool {
  name: string;
  description?: string;
  inputSchema: { type: "object"; properties?: Record<string, { type?: unknown } | undefined>; required?: string[] };
}

export type McpTestResult = ({ ok: true; tools: number } | { ok: false; error: string }) & { ms: number; server: McpServer };

export interface RegisterOptions {
  stdio?: string;
  arg?: string[];
  cwd?: string;
  env?: string[];
  secretEnv?: string[];
  url?: string;
  header?: string[];
  description?: string;
  tool?: string[];
  startTimeout?: string;
  callTimeout?: string;
  maxResultBytes?: string;
  maxSessions?: string;
}

function number(flag: string, text: string | undefined, integer: boolean): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new UsageError(`${flag} ${text}: expected ${integer ? "a whole number" : "a number"}`);
  }
  return value;
}

/** `NAME=VALUE`; for --secret-env also `NAME` alone, the value then read from this process's environment (so it stays out of shell history). */
function envEntry(flag: string, text: string, secret: boolean, environment: Record<string, string | undefined>) {
  const eq = text.indexOf("=");
  if (eq > 0) return { name: text.slice(0, eq), value: text.slice(eq + 1), secret };
  if (secret && eq < 0 && text) {
    const value = environment[text];
    if (value === undefined) throw new UsageError(`${flag} ${text}: ${text} is not set in this shell's environment (give ${text}=VALUE, or export it first)`);
    return { name: text, value, secret };
  }
  throw new UsageError(`${flag} ${text}: expected NAME=VALUE${secret ? " (or NAME, to take the value from this shell's environment)" : ""}`);
}

function header(text: string) {
  const colon = text.indexOf(":");
  if (colon <= 0) throw new UsageError(`--header ${text}: expected "Name: value", e.g. --header "Authorization: Bearer …"`);
  return { name: text.slice(0, colon).trim(), value: text.slice(colon + 1).trim() };
}

/** The body of POST /mcp-servers from `envace mcp register NAME …`. */
export function registrationBody(name: string, opts: RegisterOptions, environment: Record<string, string | undefined> = process.env) {
  if (opts.stdio === undefined && opts.url === undefined) throw new UsageError("give the server: --stdio COMMAND [--arg ARG …] or --url URL");
  if (opts.stdio !== undefined && opts.url !== undefined) throw new UsageError("give either --stdio or --url, not both");
  const stdioOnly = [
    ["--arg", opts.arg?.length],
    ["--cwd", opts.cwd !== undefined],
    ["--env", opts.env?.length],
    ["--secret-env", opts.secretEnv?.length],
  ] as const;
  if (opts.url !== undefined) {
    const given = stdioOnly.filter(([, v]) => v).map(([flag]) => flag);
    if (given.length) throw new UsageError(`${given.join(", ")} ${given.length === 1 ? "applies" : "apply"} to --stdio servers only`);
  } else if (opts.header?.length) throw new UsageError("--header applies to --url servers only");

  const launch =
    opts.stdio !== undefined
      ? {
          transport: "stdio" as const,
          command: opts.stdio,
          args: opts.arg ?? [],
          ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
          env: [...(opts.env ?? []).map((e) => envEntry("--env", e, false, environment)), ...(opts.secretEnv ?? []).map((e) => envEntry("--secret-env", e, true, environment))],
        }
      : { transport: "http" as const, url: opts.url!, headers: (opts.header ?? []).map(header) };

  const limits = Object.fromEntries(
    Object.entries({
      startTimeoutS: number("--start-timeout", opts.startTimeout, false),
      callTimeoutS: number("--call-timeout", opts.callTimeout, false),
      maxResultBytes: number("--max-result-bytes", opts.maxResultBytes, true),
      maxSessions: number("--max-sessions", opts.maxSessions, true),
    }).filter(([, v]) => v !== undefined),
  );
  return { name, ...(opts.description !== undefined ? { description: opts.description } : {}), launch, settings: { tools: opts.tool ?? [], limits } };
}

/** One line per server for `envace mcp list`. */
export function serverLine(s: McpServer): string {
  const how = s.launch.transport === "stdio" ? [s.launch.command, ...s.launch.args].join(" ") : s.launch.url;
  const tools = `${s.tools.length} tool${s.tools.length === 1 ? "" : "s"}`;
  return [s.name, s.health.padEnd(9), s.launch.transport.padEnd(5), tools.padStart(8), how].join("  ");
}

function typeOf(schema: { type?: unknown } | undefined): string {
  const t = schema?.type;
  return Array.isArray(t) ? t.join("|") : typeof t === "string" ? t : "any";
}

/** A tool as a signature: `create_entities(entities: array)`, optional parameters marked with `?`. */
export function toolSignature(tool: McpTool): string {
  const required = new Set(tool.inputSchema.required ?? []);
  const params = Object.entries(tool.inputSchema.properties ?? {}).map(([k, v]) => `${k}${required.has(k) ? "" : "?"}: ${typeOf(v)}`);
  return `${tool.name}(${params.join(", ")})`;
}

/** `envace mcp tools NAME`: the server, then each tool's signature and description. */
export function toolsView(s: McpServer): string[] {
  const info = s.serverInfo ? ` (${s.serverInfo.name}${s.serverInfo.version ? ` ${s.serverInfo.version}` : ""})` : "";
  const checked = s.checkedAt ? `, checked ${s.checkedAt.slice(0, 16).replace("T", " ")}` : ", never tested";
  const lines = [`${s.name}${info}: ${s.health}${checked}`];
  if (s.healthDetail) lines.push(`  ${s.healthDetail}`);
  if (!s.tools.length) {
    lines.push(`No tools recorded. Run \`envace mcp test ${s.name}\` (admins) to list them.`);
    return lines;
  }
  const selection = s.settings?.tools ?? [];
  for (const tool of s.tools) {
    const hidden = selection.length && !selection.includes(tool.name) ? "  (not offered to the policy: outside the tool selection)" : "";
    lines.push(`${toolSignature(tool)}${hidden}`);
    if (tool.description) lines.push(`    ${tool.description.replace(/\s+/g, " ").trim()}`);
  }
  lines.push(`Use in a run: --set data.dataset=mcp:${s.name}/<dataset>`);
  return lines;
}
