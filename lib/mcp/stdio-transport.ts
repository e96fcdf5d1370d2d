/**
 * The stdio transport of our MCP client (the SDK's `Client` speaks over it), written here instead of
 * the SDK's StdioClientTransport because a server run for an episode must be contained:
 * - it gets exactly the environment it is given (the SDK's transport adds HOME, USER, SHELL, … of the worker);
 * - it leads its own process group, stopped as a whole, and is tracked so none outlives this process
 *   (processes.ts);
 * - every message it writes is bounded (`maxMessageBytes`, checked while the line is still arriving, so
 *   a 50 MB answer is refused after 1 MB instead of buffered) and must be JSON-RPC (the spec forbids
 *   anything else on stdout): a violation ends the session with a coded failure;
 * - the tail of its stderr and how it exited are kept for error messages.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { McpSessionError } from "./errors";
import { signalGroup, stopProcessGroup, trackServerProcess, untrackServerProcess } from "./processes";

export interface StdioSpawnSpec {
  command: string;
  args: string[];
  cwd: string;
  /** The server's whole environment. */
  env: Record<string, string>;
}

const STDERR_TAIL = 4096;

export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The first thing that broke the session, when something did. */
  failure?: McpSessionError;
  exit?: { code: number | null; signal: NodeJS.Signals | null };

  private child?: ChildProcess;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stderr = "";
  /** Whether older stderr was dropped (the kept text then starts in the middle of a line). */
  private stderrCut = false;
  private closing?: Promise<void>;
  private finished = false;

  constructor(
    private readonly spec: StdioSpawnSpec,
    /** `redact`: takes the server's secrets out of texts before they are cut to length (redact.ts). */
    private readonly opts: { maxMessageBytes: number; graceMs?: number; redact?: (text: string) => string },
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last of what the server wrote to stderr, from the first whole line kept (no line cut at its start). */
  stderrTail(): string {
    const redact = this.opts.redact ?? ((t: string) => t);
    if (!this.stderrCut) return redact(this.stderr).trim();
    // The first line kept may start in the middle of a secret: it goes (or, without a line break, its start).
    const nl = this.stderr.indexOf("\n");
    return redact(nl >= 0 ? this.stderr.slice(nl + 1) : this.stderr.slice(512)).trim();
  }

  /** How the process ended, in words ("exited with code 1", "was killed by SIGKILL"), or undefined while it runs. */
  exitText(): string | undefined {
    if (!this.exit) return undefined;
    return this.exit.signal ? `was killed by ${this.exit.signal}` : `exited with code ${this.exit.code}`;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("GuardedStdioTransport already started");
    return new Promise((resolve, reject) => {
      let spawned = false;
      const child: ChildProcess = spawn(this.spec.command, this.spec.args, {
        cwd: this.spec.cwd,
        // The whole environment: nothing of this process's is inherited (see session.ts).
        env: this.spec.env as NodeJS.ProcessEnv,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      child.once("spawn", () => {
        spawned = true;
        trackServerProcess(child);
        resolve();
      });
      child.on("error", (err) => {
        if (spawned) return this.onerror?.(err);
        const failure = new McpSessionError("START_FAILED", `cannot start ${this.spec.command}: ${err.message}`);
        this.failure ??= failure;
        this.finish();
        reject(failure);
      });
      child.once("exit", (code, signal) => {
        this.exit = { code, signal };
        // Whatever the server started goes with it, even when it died on its own (and with it the pipes it holds).
        if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
      });
      // "close" comes after the last stdout data: every message the server wrote has been delivered.
      child.once("close", () => this.finish());
      child.stdout!.on("data", (chunk: Buffer) => this.onData(chunk));
      child.stderr!.on("data", (chunk: Buffer) => {
        const all = this.stderr + chunk.toString("utf8");
        if (all.length > STDERR_TAIL) this.stderrCut = true;
        this.stderr = all.slice(-STDERR_TAIL);
      });
      // Writing to a server that has just died raises EPIPE here; its exit is reported through "close".
      child.stdin!.on("error", () => {});
    });
  }

  private onData(chunk: Buffer) {
    if (this.failure) return;
    const max = this.opts.maxMessageBytes;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) {
        const rest = chunk.subarray(start);
        this.pending.push(rest);
        this.pendingBytes += rest.length;
        if (this.pendingBytes > max) this.fail("RESULT_TOO_LARGE", `the server sent a message larger than the limit of ${max} bytes (maxResultBytes)`);
        return;
      }
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      const bytes = this.pendingBytes + piece.length;
      const line = (this.pending.length ? Buffer.concat([...this.pending, piece]) : piece).toString("utf8").replace(/\r$/, "");
      this.pending = [];
      this.pendingBytes = 0;
      if (bytes > max) return this.fail("RESULT_TOO_LARGE", `the server sent a message of ${bytes} bytes, over the limit of ${max} bytes (maxResultBytes)`);
      if (line.trim() === "") continue;
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch {
        const clean = this.opts.redact ? this.opts.redact(line) : line;
        const shown = clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
        return this.fail("MALFORMED_RESULT", `the server wrote a line to stdout that is not a JSON-RPC message: ${JSON.stringify(shown)}`);
      }
      this.onmessage?.(message);
      if (this.failure) return;
    }
  }

  /** Record what broke the session and stop the server; the SDK then fails whatever is pending. */
  fail(code: McpSessionError["code"], message: string): void {
    if (this.failure) return;
    this.failure = new McpSessionError(code, message);
    this.onerror?.(this.failure);
    void this.close();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closing || this.finished || !stdin.writable) return Promise.reject(new Error("the MCP server is not running"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const child = this.child;
      if (child) {
        child.stdin?.end();
        await stopProcessGroup(child, this.opts.graceMs ?? 2000);
      }
      this.finish();
    })();
    return this.closing;
  }

  private finish() {
    if (this.finished) return;
    this.finished = true;
    untrackServerProcess(this.child?.pid);
    this.onclose?.();
  }
}
