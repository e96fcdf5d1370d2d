/**
 * Riding out a restart or outage of the policy node. A restarted node has forgotten the run's session,
 * its model and the results it had not handed out yet, so the client's next call fails (a future it
 * no longer knows, a session or sampler it no longer has, a refused connection). Those failures are
 * not the run's fault: the part of the step in flight (training, checkpoint or evaluation) is retried
 * from the run's last committed state once the node answers again — a bounded number of times, each
 * wait bounded, every wait logged and shown on the run page as "waiting for node …" — and only then
 * does the run fail, naming the node and the cause. Any other error fails the run as before.
 *
 * Generation failures never reach the executor (the engine records them as failed turns), so the
 * sampled policy is observed (`NodeWatch.observe`): a step during which a generation failed for such
 * a reason is discarded and retried, never committed with the outage baked into its trajectories.
 */
import type { NodeRestartSettings } from "../../contracts/node-settings";
import { pingNode, type NodeKind, type PingProblem } from "../../lib/node-health";
import type { GenerateRequest, PolicyClient } from "../engine/io";
import { CancelledError } from "./context";

/** The codes a Tinker-compatible node answers (404) for things a restart made it forget. */
const FORGOTTEN: Record<string, string> = {
  unknown_request: "a pending result",
  unknown_session: "the run's session",
  unknown_model: "the run's model",
  model_not_found: "the run's model",
  unknown_sampler: "the run's sampler",
};

interface ErrorShape {
  name?: unknown;
  message?: unknown;
  status?: unknown;
  code?: unknown;
  kind?: unknown;
  category?: unknown;
  cause?: unknown;
}

const SOCKET = /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EPIPE|UND_ERR_SOCKET|socket hang up|fetch failed|other side closed/;

/**
 * Why a failed call means "the node restarted or is unreachable", or null for any other failure
 * (a bad request, a failed training op, a malformed reply: retrying would not help).
 */
export function nodeFailureCause(err: unknown, depth = 0): string | null {
  if (!err || typeof err !== "object" || depth > 4) return null;
  const e = err as ErrorShape;
  const message = typeof e.message === "string" ? e.message : "";
  const status = typeof e.status === "number" ? e.status : null;
  const code = typeof e.code === "string" ? e.code : "";
  if (e.name === "TinkerError") {
    if (status === 404 && FORGOTTEN[code]) return `the node no longer knows ${FORGOTTEN[code]} (restarted?): ${message}`;
    // Servers that answer a forgotten future with a bare 404.
    if (status === 404 && !code && /retrieve_future/.test(message)) return `the node no longer knows a pending result (restarted?): ${message}`;
    // The client's model refuses further ops after a request whose outcome it could not learn.
    if (code === "model_broken") return `the run's model on the node is in an unknown state after a lost request: ${message}`;
    if (status === 410) return `the node dropped a pending result: ${message}`;
    if (e.kind === "transport" || (e.category === "transport" && code !== "deadline" && e.kind !== "deadline")) {
      if (/not ready after|not done within/.test(message)) return null; // a slow result, not a lost node
      return `the node is unreachable: ${message}`;
    }
    if (status === 502 || status === 503 || status === 504) return `the node is unavailable: ${message}`;
    return null;
  }
  if (e.name === "ChatCallError") {
    if (e.kind === "connection") return `the node is unreachable: ${message}`;
    if (status === 502 || status === 503 || status === 504) return `the node is unavailable: ${message}`;
    return null;
  }
  if (SOCKET.test(message) || (typeof code === "string" && SOCKET.test(code))) return `the node is unreachable: ${message}`;
  return nodeFailureCause(e.cause, depth + 1);
}

export class NodeFailureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NodeFailureError";
  }
}

export interface WatchedNode {
  name: string;
  kind: NodeKind;
  baseUrl: string;
  apiKey?: string | null;
}

export interface RestartReporter {
  log(level: "info" | "warn" | "error", message: string): Promise<void>;
  /** The run's status detail ("waiting for node …"); null clears it. */
  detail(text: string | null): Promise<void>;
}

/** Asks whether the node answers (null: it does; else why not — a bare string is a node that is down). Tests may replace it. */
export type Ping = (node: WatchedNode) => Promise<PingProblem | string | null>;

const defaultPing: Ping = (node) => pingNode(node);

const asProblem = (p: PingProblem | string): PingProblem => (typeof p === "string" ? { problem: p, slow: false } : p);

/**
 * Watches the node while one attempt at a part runs: records node failures of the sampled policy's
 * calls, and pings the node every `intervalMs`. When it is down (refused connection, HTTP error) the
 * run says so (log + status detail) at once; a node that is only slow to answer its health check (busy
 * with a long training call) is not an outage and is not shown as one. Either way, when it has not
 * answered for `waitS` the attempt is abandoned.
 */
export class NodeWatch {
  /** The first node failure seen by an observed call in this attempt. */
  tripped: string | null = null;
  /** Since when pings have failed (down or slow), and whether the run was told it is down. */
  private failingSince: number | null = null;
  private reportedDown = false;
  private lastProblem = "";
  private timer: NodeJS.Timeout | null = null;
  private pinging = false;
  private stopped = false;
  private giveUp: ((err: Error) => void) | null = null;
  readonly gaveUp: Promise<never>;

  constructor(
    private node: WatchedNode,
    private settings: NodeRestartSettings,
    private report: RestartReporter,
    /** What the attempt does, for the failure message: "step 3 (training)". */
    private what: string,
    private ping: Ping = defaultPing,
    private intervalMs = 5000,
  ) {
    this.gaveUp = new Promise<never>((_, reject) => (this.giveUp = reject));
    this.gaveUp.catch(() => {}); // observed through race(); never an unhandled rejection
  }

  start(): this {
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopped = true;
    this.failingSince = null;
    if (this.reportedDown) {
      this.reportedDown = false;
      void this.report.detail(null);
    }
  }

  /** The policy with every generation watched: a node failure is recorded, then rethrown as before. */
  observe(policy: PolicyClient): PolicyClient {
    const generate = async (req: GenerateRequest) => {
      try {
        return await policy.generate(req);
      } catch (err) {
        const cause = nodeFailureCause(err);
        if (cause) this.tripped ??= cause;
        throw err;
      }
    };
    return new Proxy(policy, { get: (target, prop, receiver) => (prop === "generate" ? generate : Reflect.get(target, prop, receiver)) });
  }

  private async check(): Promise<void> {
    if (this.pinging) return;
    this.pinging = true;
    try {
      const answer = await this.ping(this.node);
      if (this.stopped) return; // the attempt is over; what follows is reported by withNodeRestarts
      if (answer === null) {
        if (this.reportedDown) {
          const s = ((Date.now() - this.failingSince!) / 1000).toFixed(0);
          await this.report.log("info", `node "${this.node.name}" answers again after ${s} s`);
          await this.report.detail(null);
        }
        this.failingSince = null;
        this.reportedDown = false;
        return;
      }
      const { problem, slow } = asProblem(answer);
      this.lastProblem = problem;
      this.failingSince ??= Date.now();
      if (!slow && !this.reportedDown) {
        this.reportedDown = true;
        await this.report.log("warn", `node "${this.node.name}" is not answering (${problem}); waiting for it up to ${this.settings.waitS} s`);
        await this.report.detail(`waiting for node "${this.node.name}" (not answering since ${new Date(this.failingSince).toISOString().slice(11, 19)} UTC)`);
      }
      if (Date.now() - this.failingSince > this.settings.waitS * 1000) {
        this.giveUp?.(new NodeFailureError(`node "${this.node.name}" did not answer for ${this.settings.waitS} s during ${this.what}: ${this.lastProblem}`));
      }
    } finally {
      this.pinging = false;
    }
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });

/** Ping until the node answers; throws naming the node and `cause` when it does not within `waitS`. */
export async function waitForNode(node: WatchedNode, settings: NodeRestartSettings, cause: string, signal: AbortSignal, ping: Ping = defaultPing, intervalMs = 2000): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new CancelledError();
    const answer = await ping(node);
    if (answer === null) return Date.now() - started;
    const { problem } = asProblem(answer);
    if (Date.now() - started > settings.waitS * 1000) {
      throw new NodeFailureError(`node "${node.name}" did not answer within ${settings.waitS} s (${problem}) after: ${cause}`);
    }
    await sleep(intervalMs, signal);
  }
}

export interface RetryOptions<T> {
  node: WatchedNode;
  settings: NodeRestartSettings;
  report: RestartReporter;
  signal: AbortSignal;
  /** What is being done, for the log: "step 3 (training)". */
  what: string;
  /** Where a retry starts from, for the log: "the state of step 2". */
  from: string;
  /** One attempt. After a node failure the next attempt must re-create its session from the committed state. */
  attempt: (watch: NodeWatch) => Promise<T>;
  /** Called after a node failure, before waiting: drop the session the node forgot. */
  reset: () => void;
  ping?: Ping;
  watchIntervalMs?: number;
  waitIntervalMs?: number;
}

/** Run `attempt`, retrying it after node failures (see the module comment); other errors pass through. */
export async function withNodeRestarts<T>(o: RetryOptions<T>): Promise<T> {
  for (let retry = 0; ; retry++) {
    const watch = new NodeWatch(o.node, o.settings, o.report, o.what, o.ping, o.watchIntervalMs).start();
    let cause: string | null = null;
    try {
      const result = await Promise.race([o.attempt(watch), watch.gaveUp]);
      if (watch.tripped === null) return result;
      cause = watch.tripped; // a generation failed because of the node: the result is not the run's
    } catch (err) {
      if (err instanceof NodeFailureError || o.signal.aborted || err instanceof CancelledError) throw err;
      cause = nodeFailureCause(err) ?? watch.tripped;
      if (!cause) throw err;
    } finally {
      watch.stop();
    }
    o.reset();
    if (retry >= o.settings.stepRetries) {
      await o.report.detail(null);
      throw new NodeFailureError(
        `node "${o.node.name}": ${o.what} failed ${retry + 1} time(s) because ${cause}` +
          (o.settings.stepRetries > 0 ? ` (retried ${o.settings.stepRetries} time(s), node setting restarts.stepRetries)` : ""),
      );
    }
    await o.report.log("warn", `node "${o.node.name}": ${o.what} interrupted: ${cause}. Waiting for the node (up to ${o.settings.waitS} s), then retrying from ${o.from} (retry ${retry + 1} of ${o.settings.stepRetries})`);
    await o.report.detail(`waiting for node "${o.node.name}": ${o.what} will be retried from ${o.from} (retry ${retry + 1} of ${o.settings.stepRetries})`);
    try {
      const waited = await waitForNode(o.node, o.settings, cause, o.signal, o.ping, o.waitIntervalMs);
      await o.report.log("info", `node "${o.node.name}" answers${waited > 1000 ? ` again after ${(waited / 1000).toFixed(0)} s` : ""}; retrying ${o.what} from ${o.from}`);
    } finally {
      await o.report.detail(null);
    }
  }
}
