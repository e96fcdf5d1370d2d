/**
 * Database outages, worker side. A worker outlives an outage of any length: writes that must happen
 * (a step's commit, a run's final status) wait for the database and are then made, in order; writes
 * that only report (log lines, a status detail) are queued and flushed when it is back; the heartbeat
 * and the sweep just try again. Only "the database is unavailable" errors are waited out
 * (lib/db-errors.ts); every other error is thrown as before.
 */
import type { PrismaClient } from "@prisma/client";
import { isDatabaseUnavailable } from "../../lib/db-errors";
import { setStatusDetail } from "./lifecycle";

export interface WaitOptions {
  /** Stop waiting (the error is rethrown) when this aborts: a cancelled run, a stopping worker. */
  signal?: AbortSignal;
  /** Called once when the first attempt fails for lack of a database, and once when it is back. */
  onDown?: (err: unknown) => void;
  onUp?: (downForMs: number) => void;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

/** Capped exponential backoff with jitter, so many workers do not reconnect in lockstep. */
export function backoffMs(attempt: number, firstMs = 250, maxMs = 10_000): number {
  const base = Math.min(maxMs, firstMs * 2 ** Math.min(attempt, 20));
  return base / 2 + Math.random() * (base / 2);
}

/**
 * Run `op`; while it fails because the database is unavailable, wait and run it again, for as long as
 * that takes (unless `signal` aborts). `op` must be safe to repeat: a transaction that failed for lack
 * of a connection did not commit (and a duplicate commit of a step fails on its unique key).
 */
export async function whileDatabaseDown<T>(op: () => Promise<T>, opts: WaitOptions = {}): Promise<T> {
  let downSince: number | null = null;
  for (let attempt = 0; ; attempt++) {
    try {
      const value = await op();
      if (downSince !== null) opts.onUp?.(Date.now() - downSince);
      return value;
    } catch (err) {
      if (!isDatabaseUnavailable(err) || opts.signal?.aborted) throw err;
      if (downSince === null) {
        downSince = Date.now();
        opts.onDown?.(err);
      }
      await sleep(backoffMs(attempt, opts.firstDelayMs, opts.maxDelayMs), opts.signal);
    }
  }
}

/** An error's gist on one line (Prisma's messages span several lines, the cause last). */
export function shortMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const lines = text.split("\n").map((l) => l.trim()).filter(Boolean);
  const last = lines.at(-1) ?? text;
  return (/Message: `(.*)`/.exec(last)?.[1] ?? last).slice(0, 300);
}

/**
 * Tracks one kind of periodic database work (heartbeats, the sweep, pg-boss polling) through an
 * outage: one line when it starts failing, one when it works again, nothing in between.
 */
export class OutageNotice {
  private since: number | null = null;
  constructor(
    private what: string,
    private logger: (message: string) => void,
  ) {}

  /** Report a failure; returns false when it is not an outage (the caller logs it as an error). */
  failed(err: unknown): boolean {
    if (!isDatabaseUnavailable(err)) return false;
    if (this.since === null) {
      this.since = Date.now();
      this.logger(`${this.what}: database unavailable (${shortMessage(err)}); retrying until it is back`);
    }
    return true;
  }

  ok(): void {
    if (this.since === null) return;
    this.logger(`${this.what}: database back after ${((Date.now() - this.since) / 1000).toFixed(1)} s`);
    this.since = null;
  }
}

type JournalEntry =
  | { kind: "log"; level: "info" | "warn" | "error"; message: string; ts: Date }
  | { kind: "detail"; text: string | null };

/**
 * A run's log lines and status detail, written in the order they were made. Writing never blocks the
 * run: entries are queued and written by one loop that waits out database outages, so training goes on
 * while the database is away and nothing it reported is lost. `flush()` resolves once everything
 * queued so far is written (the worker flushes before it records the run's final status).
 */
export class RunJournal {
  private queue: JournalEntry[] = [];
  private draining: Promise<void> | null = null;
  private dropped = 0;
  static readonly MAX_QUEUED = 10_000;

  constructor(
    private prisma: PrismaClient,
    private runId: string,
    private workerId: string,
    private logger: (message: string) => void,
    private signal?: AbortSignal,
  ) {}

  log(level: "info" | "warn" | "error", message: string): Promise<void> {
    this.push({ kind: "log", level, message: message.slice(0, 10_000), ts: new Date() });
    return Promise.resolve();
  }

  /** What the run is doing beside progressing (e.g. waiting for a node); null clears it. */
  detail(text: string | null): Promise<void> {
    this.push({ kind: "detail", text: text === null ? null : text.slice(0, 500) });
    return Promise.resolve();
  }

  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private push(entry: JournalEntry) {
    if (this.queue.length >= RunJournal.MAX_QUEUED) {
      // A very long outage with a chatty run: keep the newest lines, count what was dropped.
      const i = this.queue.findIndex((e) => e.kind === "log");
      if (i >= 0) {
        this.queue.splice(i, 1);
        this.dropped++;
      }
    }
    this.queue.push(entry);
    this.kick();
  }

  private kick() {
    if (this.draining) return;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.queue.length > 0) this.kick(); // queued while the loop was ending
    });
  }

  private async drain(): Promise<void> {
    const notice = new OutageNotice(`run ${this.runId} log`, this.logger);
    while (this.queue.length > 0) {
      const entry = this.queue[0]!;
      try {
        await whileDatabaseDown(() => this.write(entry), { signal: this.signal, onDown: (e) => notice.failed(e), onUp: () => notice.ok() });
      } catch (err) {
        // Not an outage (or the run is over for this worker): this entry cannot be written; go on.
        this.logger(`run ${this.runId}: could not write ${entry.kind === "log" ? "a log line" : "the status detail"}: ${(err as Error).message}`);
      }
      this.queue.shift();
      if (this.dropped > 0 && this.queue.length === 0) {
        const n = this.dropped;
        this.dropped = 0;
        this.queue.push({ kind: "log", level: "warn", message: `${n} log line(s) dropped while the database was unavailable`, ts: new Date() });
      }
    }
  }

  private async write(entry: JournalEntry): Promise<void> {
    if (entry.kind === "log") {
      await this.prisma.runLog.create({ data: { runId: this.runId, level: entry.level, message: entry.message, ts: entry.ts } });
    } else {
      await setStatusDetail(this.prisma, this.runId, this.workerId, entry.text);
    }
  }
}
