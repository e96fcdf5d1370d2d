/**
 * How a registered MCP server is stored (the `mcp_server` row) and read back: secret environment values
 * and every header value are AES-GCM encrypted (lib/secrets.ts, like node API keys); `launchSpecOf`
 * decrypts them only to start the server (the worker's episodes, the API's Test button); `publicLaunchOf`
 * is what the browser may see. Stored JSON is validated where it is read.
 */
import { z } from "zod";
import { mcpToolSchema, parseMcpServerSettings, type McpLaunch, type McpServerSettings, type McpToolInfo } from "../../contracts/mcp";
import { decryptSecret, encryptSecret } from "../secrets";
import type { McpLaunchSpec } from "./session";

const storedEnvSchema = z.array(
  z.union([
    z.object({ name: z.string(), secret: z.literal(false), value: z.string() }),
    z.object({ name: z.string(), secret: z.literal(true), valueEnc: z.string() }),
  ]),
);
const storedHeadersSchema = z.array(z.object({ name: z.string(), valueEnc: z.string() }));
const storedArgsSchema = z.array(z.string());

/** The columns of a row that describe how to reach the server. */
export interface StoredLaunchColumns {
  transport: string;
  command: string | null;
  args: unknown;
  cwd: string | null;
  env: unknown;
  url: string | null;
  headers: unknown;
}

/** The launch select for Prisma (includes the encrypted values: never return it to a browser). */
export const launchColumns = { transport: true, command: true, args: true, cwd: true, env: true, url: true, headers: true } as const;

/** Registration input → the row's launch columns, secrets encrypted. */
export function storedLaunchOf(launch: McpLaunch) {
  if (launch.transport === "stdio") {
    return {
      transport: "stdio",
      command: launch.command,
      args: launch.args,
      cwd: launch.cwd ? launch.cwd : null,
      env: launch.env.map((e) => (e.secret ? { name: e.name, secret: true, valueEnc: encryptSecret(e.value) } : { name: e.name, secret: false, value: e.value })),
      url: null,
      headers: [],
    };
  }
  return {
    transport: "http",
    command: null,
    args: [],
    cwd: null,
    env: [],
    url: launch.url,
    headers: launch.headers.map((h) => ({ name: h.name, valueEnc: encryptSecret(h.value) })),
  };
}

function invalid(name: string, what: string): Error {
  return new Error(`MCP server ${name}: the stored ${what} is malformed; register the server again`);
}

/** The row's launch with its secrets decrypted, to start the server. */
export function launchSpecOf(name: string, row: StoredLaunchColumns): McpLaunchSpec {
  if (row.transport === "stdio") {
    const args = storedArgsSchema.safeParse(row.args);
    const env = storedEnvSchema.safeParse(row.env);
    if (!row.command || !args.success) throw invalid(name, "command");
    if (!env.success) throw invalid(name, "environment");
    return {
      transport: "stdio",
      command: row.command,
      args: args.data,
      ...(row.cwd ? { cwd: row.cwd } : {}),
      env: env.data.map((e) => (e.secret ? { name: e.name, value: decryptSecret(e.valueEnc), secret: true } : { name: e.name, value: e.value })),
    };
  }
  if (row.transport === "http") {
    const headers = storedHeadersSchema.safeParse(row.headers);
    if (!row.url || !headers.success) throw invalid(name, "URL or headers");
    return { transport: "http", url: row.url, headers: headers.data.map((h) => ({ name: h.name, value: decryptSecret(h.valueEnc) })) };
  }
  throw invalid(name, `transport "${row.transport}"`);
}

/** What the browser sees of a launch: secret values and header values are never sent, only their names. */
export type PublicLaunch =
  | { transport: "stdio"; command: string; args: string[]; cwd: string | null; env: { name: string; secret: boolean; value: string | null }[] }
  | { transport: "http"; url: string; headers: { name: string }[] };

export function publicLaunchOf(row: StoredLaunchColumns): PublicLaunch {
  if (row.transport === "http") {
    const headers = storedHeadersSchema.safeParse(row.headers);
    return { transport: "http", url: row.url ?? "", headers: headers.success ? headers.data.map((h) => ({ name: h.name })) : [] };
  }
  const args = storedArgsSchema.safeParse(row.args);
  const env = storedEnvSchema.safeParse(row.env);
  return {
    transport: "stdio",
    command: row.command ?? "",
    args: args.success ? args.data : [],
    cwd: row.cwd,
    env: env.success ? env.data.map((e) => ({ name: e.name, secret: e.secret, value: e.secret ? null : e.value })) : [],
  };
}

/** Stored tools, validated (a malformed entry is dropped rather than trusted). */
export function storedToolsOf(value: unknown): McpToolInfo[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((t) => {
    const parsed = mcpToolSchema.safeParse(t);
    return parsed.success ? [parsed.data] : [];
  });
}

export function storedSettingsOf(name: string, value: unknown): McpServerSettings {
  try {
    return parseMcpServerSettings(value);
  } catch {
    throw invalid(name, "settings");
  }
}
