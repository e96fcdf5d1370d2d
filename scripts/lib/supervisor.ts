/**
 * Process supervision for `npm start`: every service runs in its own process group (so a Ctrl-C in the
 * terminal reaches only the supervisor), a service that exits on its own is restarted with exponential
 * backoff and the restart is logged, and only `stop()` ends them — one at a time, in the order given.
 * Each service gets a stdin pipe nothing writes to and ENVACE_SUPERVISED=1: when the supervisor dies
 * (kill -9, OOM) the pipe closes and the service stops itself (lib/supervised.ts), leaving no orphan.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { SUPERVISED_ENV } from "../../lib/supervised";
import { processGroupRunning } from "./processes";

export interface ServiceSpec {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Resolves when the service answers; called after every (re)start. Rejects if `alive()` turns false. */
  ready?: (alive: () => boolean) => Promise<void>;
  /** Runs after each successful `ready` (e.g. re-register the embedded node). */
  afterReady?: () => Promise<void>;
  /** Grace period after SIGTERM before SIGKILL on stop (default 15 s); also for what a dead service left running. */
  stopTimeoutMs?: number;
  /**
   * The signal that stops what a service that died left running in its process group, before it is started
   * again (default SIGTERM). PostgreSQL: SIGINT, its fast shutdown (SIGTERM waits for every client to leave).
   */
  leftoverSignal?: NodeJS.Signals;
}

export interface BackoffPolicy {
  /** First restart delay (default 1 s), doubled per consecutive crash up to `maxMs` (default 30 s). */
  initialMs: number;
  maxMs: number;
  /** A service that ran this long before exiting starts again from `initialMs` (default 60 s). */
  resetAfterMs: number;
}

export interface SupervisorOptions {
  log?: (line: string) => void;
  /** Where the services' own output goes (each line prefixed with `[name]`). */
  write?: (stream: "stdout" | "stderr", text: string) => void;
  backoff?: Partial<BackoffPolicy>;
}

interface Service {
  spec: ServiceSpec;
  child: ChildProcess | null;
  startedAt: number;
  crashes: number;
  restarts: number;
  timer: NodeJS.Timeout | null;
  exited: Promise<void>;
  /** False until the first start is ready: a failed first start is an error for the caller, not a restart. */
  supervised: boolean;
  /** The last process started: its pid is its process group's id. */
  lastPid: number | null;
}

export function restartDelayMs(consecutiveCrashes: number, policy: BackoffPolicy): number {
  return Math.min(policy.maxMs, policy.initialMs * 2 ** Math.max(0, consecutiveCrashes - 1));
}

function prefixLines(name: string, chunk: Buffer | string): string {
  return (
    chunk
      .toString()
      .split("\n")
      .filter((l) => l.length)
      .map((l) => `[${name}] ${l}`)
      .join("\n") + "\n"
  );
}

export class Supervisor {
  private readonly services = new Map<string, Service>();
  private readonly policy: BackoffPolicy;
  private readonly log: (line: string) => void;
  private readonly write: (stream: "stdout" | "stderr", text: string) => void;
  private stopping = false;

  constructor(opts: SupervisorOptions = {}) {
    this.log = opts.log ?? ((l) => console.log(l));
    this.write = opts.write ?? ((s, t) => (s === "stdout" ? process.stdout.write(t) : process.stderr.write(t)));
    this.policy = { initialMs: 1000, maxMs: 30_000, resetAfterMs: 60_000, ...opts.backoff };
  }

  /** Start a service and wait until it is ready; it is supervised from now on. */
  async start(spec: ServiceSpec): Promise<void> {
    if (this.services.has(spec.name)) throw new Error(`service ${spec.name} is already supervised`);
    const svc: Service = { spec, child: null, startedAt: 0, crashes: 0, restarts: 0, timer: null, exited: Promise.resolve(), supervised: false, lastPid: null };
    this.services.set(spec.name, svc);
    this.spawn(svc);
    try {
      await this.whenReady(svc);
    } catch (err) {
      await this.stopOne(svc);
      this.services.delete(spec.name);
      throw err;
    }
    svc.supervised = true;
  }

  /** The pid of a running service (tests, diagnostics). */
  pid(name: string): number | undefined {
    return this.services.get(name)?.child?.pid;
  }

  restarts(name: string): number {
    return this.services.get(name)?.restarts ?? 0;
  }

  private spawn(svc: Service) {
    const { spec } = svc;
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: { ...spec.env, [SUPERVISED_ENV]: "1" },
      // stdin: the service's lifeline; it closes when this process dies, however it dies.
      stdio: ["pipe", "pipe", "pipe"],
      // Own process group: the terminal's Ctrl-C reaches the supervisor only, which stops services in order.
      detached: true,
    });
    svc.child = child;
    svc.lastPid = child.pid ?? null;
    svc.startedAt = Date.now();
    child.stdin!.on("error", () => {}); // never written; a service that exited closes its end
    child.stdout!.on("data", (c: Buffer) => this.write("stdout", prefixLines(spec.name, c)));
    child.stderr!.on("data", (c: Buffer) => this.write("stderr", prefixLines(spec.name, c)));
    svc.exited = new Promise<void>((resolve) => {
      let settled = false;
      const done = (code: number | null, signal: NodeJS.Signals | null, error?: Error) => {
        if (settled) return;
        settled = true;
        if (svc.child === child) svc.child = null;
        resolve();
        if (!this.stopping && svc.supervised) this.onUnexpectedExit(svc, code, signal, error);
      };
      child.on("error", (err) => done(null, null, err));
      child.on("exit", (code, signal) => done(code, signal));
    });
  }

  private onUnexpectedExit(svc: Service, code: number | null, signal: NodeJS.Signals | null, error?: Error) {
    const ranMs = Date.now() - svc.startedAt;
    svc.crashes = ranMs >= this.policy.resetAfterMs ? 1 : svc.crashes + 1;
    const delay = restartDelayMs(svc.crashes, this.policy);
    const how = error ? `could not start (${error.message})` : signal ? `was killed (${signal})` : `exited with code ${code}`;
    this.log(`${svc.spec.name} ${how} after ${formatMs(ranMs)}; restarting in ${formatMs(delay)}`);
    const group = svc.lastPid;
    svc.timer = setTimeout(async () => {
      svc.timer = null;
      if (this.stopping) return;
      // A service killed with -9 cannot stop what it started (PostgreSQL's server, a child): they would hold its port.
      if (group !== null) await this.stopLeftovers(svc, group);
      if (this.stopping) return;
      svc.restarts += 1;
      this.spawn(svc);
      this.whenReady(svc).then(
        () => this.log(`${svc.spec.name} is back (restart ${svc.restarts})`),
        (err) => {
          // The new process died before it was ready; its exit handler schedules the next attempt.
          if (!this.stopping && svc.child) this.log(`${svc.spec.name} is not ready yet: ${(err as Error).message}`);
        },
      );
    }, delay);
  }

  /** Stops whatever is left in a dead service's process group: its leftover signal, then SIGKILL after the grace period. */
  private async stopLeftovers(svc: Service, group: number): Promise<void> {
    if (!processGroupRunning(group)) return;
    const signal = svc.spec.leftoverSignal ?? "SIGTERM";
    this.log(`${svc.spec.name} left processes running (process group ${group}); stopping them (${signal}) before the restart`);
    const graceMs = svc.spec.stopTimeoutMs ?? 15_000;
    for (const [sig, waitMs] of [[signal, graceMs], ["SIGKILL", 5_000]] as const) {
      try {
        process.kill(-group, sig);
      } catch {
        return; // the group is gone
      }
      const deadline = Date.now() + waitMs;
      while (Date.now() < deadline) {
        if (!processGroupRunning(group)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    this.log(`${svc.spec.name}: process group ${group} is still there after SIGKILL; starting it again anyway`);
  }

  private async whenReady(svc: Service): Promise<void> {
    const child = svc.child;
    const alive = () => child !== null && svc.child === child && child.exitCode === null && child.signalCode === null;
    if (svc.spec.ready) await svc.spec.ready(alive);
    if (svc.spec.afterReady) await svc.spec.afterReady();
  }

  /** Stop every service, one at a time in `order` (unnamed ones last), SIGTERM first and SIGKILL after a grace period. */
  async stop(order: string[] = []): Promise<void> {
    this.stopping = true;
    for (const svc of this.services.values()) {
      if (svc.timer) clearTimeout(svc.timer);
      svc.timer = null;
    }
    const names = [...order.filter((n) => this.services.has(n)), ...[...this.services.keys()].filter((n) => !order.includes(n))];
    for (const name of names) await this.stopOne(this.services.get(name)!);
  }

  private async stopOne(svc: Service): Promise<void> {
    const child = svc.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = svc.exited;
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal); // the whole group: whatever the service spawned goes too
      } catch {
        try {
          child.kill(signal);
        } catch {
          /* already gone */
        }
      }
    };
    const timer = setTimeout(() => kill("SIGKILL"), svc.spec.stopTimeoutMs ?? 15_000);
    kill("SIGTERM");
    await gone;
    clearTimeout(timer);
  }
}

export interface SignalHandling {
  /** Stop order of the services (the rest follow). */
  order: string[];
  /** Runs after every service stopped (e.g. stop the database). */
  after?: () => Promise<void>;
  onStopping?: (signal: NodeJS.Signals) => void;
  onStopped?: () => void;
}

/**
 * Ctrl-C (SIGINT), SIGTERM and SIGHUP stop everything in order, then `after`, then exit 0. The services
 * never see the terminal's signal themselves (own process groups), so nothing dies out of order.
 */
export function stopOnSignals(supervisor: Supervisor, handling: SignalHandling): { stopping: () => boolean; stop: (code: number) => Promise<void> } {
  let stopping = false;
  /** `signal` absent: a failed start, already reported by the caller; stop without further lines. */
  const stop = async (code: number, signal?: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    if (signal) handling.onStopping?.(signal);
    await supervisor.stop(handling.order);
    await handling.after?.().catch(() => {});
    if (signal) handling.onStopped?.();
    process.exit(code);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void stop(0, signal));
  return { stopping: () => stopping, stop };
}

function formatMs(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
