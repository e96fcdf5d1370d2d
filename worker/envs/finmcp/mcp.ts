/**
 * FinMCP-Bench against a registered MCP server (`finmcp.environment: mcp:<server>`): upstream's protocol. Upstream's
 * inference_api.py asks the live server for every call of a round and writes what it answers:
 *
 * - the first content block's text (`result.content[0].text`; "" when empty), whatever the server's error flag;
 * - a call that keeps failing (no text block, an exception, its 10 s attempt timing out) is retried with exponential
 *   back-off, up to `mcp_max_retries` attempts; then it answers `[error] Tool '<name>' failed after <n> retries`;
 * - a round whose calls do not all finish within `mcp_timeout` (30 s), or whose server cannot be reached, gets the one
 *   text "调用失败" ("call failed").
 *
 * The tool schemas sent with every request are the server's (tools/list at the run's start, its registered tool
 * selection applied). Differences, all of them about timing: the engine runs a round's calls one after the other (upstream:
 * in parallel), each call has its own 30 s budget, and a session is opened per turn (upstream: per round); a failed
 * round's "调用失败" is written once per call (upstream: one tool message without an id).
 */
import type { McpLimits } from "../../../contracts/mcp";
import { openMcpSession, type McpLaunchSpec, type McpSession } from "../../../lib/mcp/session";
import type { ToolEnvironment, ToolOutcome } from "../../engine/types";
import type { Slots } from "../mcp/slots";

/** upstream's text for a round that failed as a whole. */
export const FAILED_ROUND = "调用失败";
/** upstream's infer_config.yaml mcp_timeout: the whole round's time (s). */
export const FINMCP_ROUND_TIMEOUT_S = 30;

export interface FinmcpMcpOptions {
  server: string;
  spec: McpLaunchSpec;
  limits: McpLimits;
  slots: Slots;
  attempts: number;
  callTimeoutMs: number;
  roundTimeoutMs?: number;
  /** Ends waits and calls when the run closes. */
  signal: AbortSignal;
  /** Counts a call answered with FAILED_ROUND (logged and stored as a metric). */
  onFailedRound?: () => void;
  sleep?: (ms: number) => Promise<void>;
  open?: typeof openMcpSession;
}

/** upstream's `result.content[0].text`, or a reason it has none (which makes the attempt fail). */
function firstText(result: Awaited<ReturnType<McpSession["call"]>>): string {
  const block = result.content?.[0];
  if (!block) throw new Error("list index out of range");
  if (block.type !== "text") throw new Error(`'${block.type}' content has no attribute 'text'`);
  return block.text;
}

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what} timed out after ${ms / 1000} s`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });

/** One turn's world over a fresh session of the server (opened at the first call, closed with the world). */
export function finmcpMcpWorld(o: FinmcpMcpOptions): ToolEnvironment {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const open = o.open ?? openMcpSession;
  let session: Promise<{ session: McpSession; release: () => void }> | null = null;
  const connect = () =>
    (session ??= (async () => {
      const release = await o.slots.acquire(o.signal);
      try {
        return { session: await open(o.spec, { limits: o.limits, label: o.server, signal: o.signal }), release };
      } catch (e) {
        release();
        session = null;
        throw e;
      }
    })());
  const roundMs = o.roundTimeoutMs ?? FINMCP_ROUND_TIMEOUT_S * 1000;

  async function call(name: string, args: Record<string, unknown>): Promise<string> {
    const deadline = Date.now() + roundMs;
    const failedRound = () => (o.onFailedRound?.(), FAILED_ROUND);
    for (let attempt = 1; attempt <= o.attempts; attempt++) {
      if (Date.now() >= deadline || o.signal.aborted) break;
      let s: McpSession;
      try {
        s = (await withTimeout(connect(), Math.max(1, deadline - Date.now()), "connecting to the MCP server")).session;
      } catch {
        // upstream: a server it cannot connect to fails the whole round (exec_tool_batch returns None).
        return failedRound();
      }
      try {
        const result = await withTimeout(s.call(name, args, o.signal), Math.min(o.callTimeoutMs, Math.max(1, deadline - Date.now())), `tool ${name}`);
        return firstText(result);
      } catch {
        // upstream retries whatever failed: back-off 1 s · 2^(attempt−1) · (1 + random).
      }
      if (attempt === o.attempts) return `[error] Tool '${name}' failed after ${o.attempts} retries`;
      const wait = 1000 * 2 ** (attempt - 1) * (1 + Math.random());
      if (Date.now() + wait >= deadline) break;
      await sleep(wait);
    }
    return failedRound();
  }

  return {
    async execute(name, argumentsJson): Promise<ToolOutcome> {
      // The engine parsed the arguments already (a call whose arguments are not JSON never gets here).
      const args = JSON.parse(argumentsJson) as unknown;
      const text = await call(name, args && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {});
      return { content: text, isError: text === FAILED_ROUND || text.startsWith("[error] ") };
    },
    snapshot: () => null,
    async close() {
      const s = session;
      session = null;
      if (!s) return;
      const opened = await s.catch(() => null);
      if (!opened) return;
      await opened.session.close().catch(() => {});
      opened.release();
    },
  };
}
