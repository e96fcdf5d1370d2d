/**
 * One MCP session through the official SDK client (`@modelcontextprotocol/sdk` Client): a fresh
 * server process (stdio) or a fresh session on a running server (streamable HTTP), with the
 * registered limits — start and call timeouts, a bound on every message — and the failures that end
 * it named by code (errors.ts). Used for an episode (worker/envs/mcp), for discovering a server's tools
 * when a run opens, and for the Test button (server/features/mcp-servers).
 *
 * A stdio server's environment is what the admin configured plus a minimal safe base, and nothing
 * else from the worker: PATH (so `node`, `npx`, `python3` resolve), and HOME and TMPDIR pointing at the
 * episode's scratch directory — a fresh directory per session, removed after it, also the default
 * working directory and what `${EPISODE_DIR}` expands to. Admin values override the base. No database
 * URL, no ENVACE_SECRET, no cloud credentials reach a server unless an admin writes them in.
 *
 * Nothing that leaves a session carries the server's own secrets (redact.ts): error messages (its
 * stderr, its JSON-RPC error text), tool results, its tools and what it calls itself are redacted here,
 * before anyone stores or shows them.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { EPISODE_DIR_PLACEHOLDER, mcpToolSchema, type McpLimits, type McpToolInfo } from "../../contracts/mcp";
import { McpSessionError } from "./errors";
import { redactDeep, redactorFor, type NamedSecret, type Redactor } from "./redact";
import { GuardedStdioTransport } from "./stdio-transport";

/** A server's launch with its secrets decrypted (lib/mcp/store.ts); placeholders still unexpanded. */
export type McpLaunchSpec =
  | { transport: "stdio"; command: string; args: string[]; cwd?: string; env: { name: string; value: string; secret?: boolean }[] }
  | { transport: "http"; url: string; headers: { name: string; value: string }[] };

/** The launch's secrets: its secret environment values (stdio) or every header value (HTTP). */
export function secretsOf(spec: McpLaunchSpec): NamedSecret[] {
  if (spec.transport === "stdio") return spec.env.filter((e) => e.secret).map((e) => ({ label: e.name, value: e.value }));
  return spec.headers.map((h) => ({ label: `header ${h.name}`, value: h.value }));
}

/** The same failure, with the server's secrets taken out of its message. */
function redactedError(e: unknown, redact: Redactor): Error {
  if (e instanceof McpSessionError) return new McpSessionError(e.code, redact(e.message));
  const err = new Error(redact(e instanceof Error ? e.message : String(e)));
  if (e instanceof Error) err.name = e.name;
  return err;
}

/** Where episode scratch directories are made: ENVACE_MCP_SCRATCH_DIR, else <tmp>/envace-mcp. */
export function scratchRoot(): string {
  return process.env.ENVACE_MCP_SCRATCH_DIR || path.join(os.tmpdir(), "envace-mcp");
}

/** The base environment of every stdio server (before the admin's values). */
export function baseServerEnv(episodeDir: string): Record<string, string> {
  return { PATH: process.env.PATH || "/usr/local/bin:/usr/bin:/bin", HOME: episodeDir, TMPDIR: episodeDir };
}

const expand = (text: string, episodeDir: string) => text.split(EPISODE_DIR_PLACEHOLDER).join(episodeDir);

const CLIENT_INFO = { name: "envace-studio", version: "1" };

export interface McpSessionOptions {
  limits: McpLimits;
  /** The server's name, for messages. */
  label: string;
  /** List the server's tools right after initialize (discovery and the Test button). */
  listTools?: boolean;
  /** Gives up starting (the server is stopped) when aborted: a run that closes while its episodes' servers start. */
  signal?: AbortSignal;
}

export interface McpSession {
  readonly serverInfo?: { name: string; version: string };
  /** The server's tools (with `listTools`), every page of tools/list. */
  readonly tools: McpToolInfo[];
  /** The episode's scratch directory (stdio), for tests and logs. */
  readonly episodeDir?: string;
  /**
   * Call a tool. Resolves with the server's answer — a JSON-RPC error answer (unknown tool, bad
   * arguments) comes back as an `isError` result with its message, as MCP hosts show it; rejects with
   * McpSessionError when the server broke (crashed, hung, oversized or malformed answer).
   */
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * Open a session; rejects with McpSessionError START_FAILED (or TIMEOUT on initialize) after cleaning up.
 * Every text out of it — errors, results, tools, server info — is redacted of the launch's secrets.
 */
export async function openMcpSession(spec: McpLaunchSpec, opts: McpSessionOptions): Promise<McpSession> {
  const redact = redactorFor(secretsOf(spec));
  let session: McpSession;
  try {
    session = await openRawSession(spec, opts, redact);
  } catch (e) {
    throw redactedError(e, redact);
  }
  return {
    serverInfo: redactDeep(session.serverInfo, redact),
    tools: redactDeep(session.tools, redact),
    episodeDir: session.episodeDir,
    close: () => session.close(),
    async call(name, args, signal) {
      try {
        return redactDeep(await session.call(name, args, signal), redact);
      } catch (e) {
        // An abort is the caller's own signal: passed on as it is.
        if (signal?.aborted) throw e;
        throw redactedError(e, redact);
      }
    },
  };
}

async function openRawSession(spec: McpLaunchSpec, opts: McpSessionOptions, redact: Redactor): Promise<McpSession> {
  const { limits } = opts;
  let episodeDir: string | undefined;
  let stdio: GuardedStdioTransport | undefined;
  let http: StreamableHTTPClientTransport | undefined;
  let httpFailure: McpSessionError | undefined;
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  // The SDK reports out-of-band transport trouble here; the failures that matter are recorded on the transport.
  client.onerror = () => {};

  const failure = () => stdio?.failure ?? httpFailure;
  // Redacted (by the transport) before it is cut to length, so no cut leaves part of a secret behind.
  const stderrTail = () => stdio?.stderrTail() ?? "";
  const describeExit = () => {
    const how = stdio?.exitText();
    const tail = stderrTail();
    return [how ? `the server ${how}` : "the connection closed", tail ? `stderr: ${tail.slice(-1000)}` : ""].filter(Boolean).join("; ");
  };
  const cleanup = async () => {
    await client.close().catch(() => {});
    await stdio?.close().catch(() => {});
    if (episodeDir) await fs.rm(episodeDir, { recursive: true, force: true }).catch(() => {});
  };

  const onAbort = () => void Promise.all([client.close().catch(() => {}), stdio?.close().catch(() => {})]);
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (opts.signal?.aborted) throw new Error("cancelled before it started");
    if (spec.transport === "stdio") {
      const root = scratchRoot();
      await fs.mkdir(root, { recursive: true });
      episodeDir = await fs.mkdtemp(path.join(root, `${opts.label}-`));
      const env = { ...baseServerEnv(episodeDir) };
      for (const e of spec.env) env[e.name] = expand(e.value, episodeDir);
      stdio = new GuardedStdioTransport(
        { command: spec.command, args: spec.args.map((a) => expand(a, episodeDir!)), cwd: spec.cwd ? expand(spec.cwd, episodeDir) : episodeDir, env },
        { maxMessageBytes: limits.maxResultBytes + 64 * 1024, redact },
      );
      await client.connect(stdio, { timeout: limits.startTimeoutS * 1000 });
    } else {
      const headers = Object.fromEntries(spec.headers.map((h) => [h.name, h.value]));
      const onTooLarge = (bytes: number) => {
        httpFailure ??= new McpSessionError("RESULT_TOO_LARGE", `the server sent a response of more than ${limits.maxResultBytes} bytes (maxResultBytes); stopped after ${bytes}`);
        void client.close().catch(() => {});
      };
      http = new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers }, fetch: boundedFetch(limits.maxResultBytes + 64 * 1024, onTooLarge) });
      await client.connect(http, { timeout: limits.startTimeoutS * 1000 });
    }
  } catch (e) {
    // A start that failed must not leave its listener on the caller's signal: one shared by a run's
    // episodes would collect one per failed start.
    opts.signal?.removeEventListener("abort", onAbort);
    const broke = failure();
    await cleanup();
    if (opts.signal?.aborted) throw new McpSessionError("START_FAILED", `${opts.label}: start cancelled (the run's environment closed)`);
    if (broke?.code === "START_FAILED") throw broke;
    if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
      throw new McpSessionError("START_FAILED", `${opts.label}: no answer to initialize within ${limits.startTimeoutS} s${stderrTail() ? `; stderr: ${stderrTail().slice(-1000)}` : ""}`);
    }
    const why = broke ? broke.message : e instanceof McpError && e.code === ErrorCode.ConnectionClosed ? describeExit() : errorText(e);
    throw new McpSessionError("START_FAILED", `${opts.label} did not start: ${why}`);
  }

  opts.signal?.removeEventListener("abort", onAbort);
  let tools: McpToolInfo[] = [];
  if (opts.listTools) {
    try {
      tools = await listAllTools(client, limits.callTimeoutS * 1000);
    } catch (e) {
      await cleanup();
      throw failure() ?? new McpSessionError("MALFORMED_RESULT", `${opts.label}: tools/list failed: ${errorText(e)}`);
    }
  }

  let closed = false;
  let closing: Promise<void> | undefined;
  // Every caller waits for the same stop (the process is gone when close() resolves, whoever called it first).
  const close = () =>
    (closing ??= (async () => {
      closed = true;
      // A streamable-HTTP server forgets the session (and its state); a stdio server's process is stopped.
      if (http?.sessionId) await http.terminateSession().catch(() => {});
      await cleanup();
    })());

  return {
    serverInfo: client.getServerVersion(),
    tools,
    episodeDir,
    close,
    async call(name, args, signal) {
      const broke = failure();
      if (broke) throw broke;
      try {
        return (await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: limits.callTimeoutS * 1000, signal })) as CallToolResult;
      } catch (e) {
        if (signal?.aborted) throw e;
        const recorded = failure();
        if (recorded) throw recorded;
        if (e instanceof McpError) {
          if (e.code === ErrorCode.RequestTimeout) {
            // A hung server is stopped: nothing it does later can reach another episode.
            void close();
            throw new McpSessionError("TIMEOUT", `tool ${name} did not answer within ${limits.callTimeoutS} s (callTimeoutS)`);
          }
          if (e.code === ErrorCode.ConnectionClosed) throw new McpSessionError("CRASHED", `${opts.label} stopped during tool ${name}: ${describeExit()}`);
          // A JSON-RPC error answer (unknown tool, invalid arguments, an internal error) is the server's reply.
          return { content: [{ type: "text", text: e.message }], isError: true };
        }
        if (isZodError(e)) throw new McpSessionError("MALFORMED_RESULT", `tool ${name} returned a result that is not an MCP CallToolResult: ${zodText(e)}`);
        if (closed || stdio?.exit) throw new McpSessionError("CRASHED", `${opts.label} stopped during tool ${name}: ${describeExit()}`);
        throw new McpSessionError("CRASHED", `tool ${name} failed: ${errorText(e)}`);
      }
    },
  };
}

async function listAllTools(client: Client, timeoutMs: number): Promise<McpToolInfo[]> {
  const out: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const res = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
    for (const t of res.tools) {
      const parsed = mcpToolSchema.safeParse(t);
      if (!parsed.success) throw new Error(`tool ${JSON.stringify((t as { name?: unknown }).name)} is malformed: ${zodText(parsed.error)}`);
      out.push(parsed.data);
    }
    cursor = res.nextCursor;
    if (!cursor) break;
  }
  return out;
}

/** fetch whose POST response bodies stop (and report) beyond `maxBytes`: one answer can never be larger. */
function boundedFetch(maxBytes: number, onTooLarge: (bytes: number) => void) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const res = await fetch(url, init);
    if ((init?.method ?? "GET").toUpperCase() !== "POST" || !res.body) return res;
    let seen = 0;
    const limited = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) {
            onTooLarge(seen);
            controller.error(new McpSessionError("RESULT_TOO_LARGE", `response larger than ${maxBytes} bytes`));
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

function isZodError(e: unknown): e is { issues: { path: (string | number)[]; message: string }[] } {
  return typeof e === "object" && e !== null && Array.isArray((e as { issues?: unknown }).issues);
}

function zodText(e: { issues: { path: (string | number)[]; message: string }[] }): string {
  return e.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "result"}: ${i.message}`)
    .join("; ");
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
