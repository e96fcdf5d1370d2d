import type { PrismaClient } from "@prisma/client";
import type { RunConfig } from "../../contracts/run-config";

/** What an executor gets: the run, a cancel signal, and fenced writers for logs and progress. */
export interface RunContext {
  runId: string;
  workerId: string;
  config: RunConfig;
  prisma: PrismaClient;
  /** Aborted when a user cancels the run or this worker loses its claim. */
  signal: AbortSignal;
  attempt: number;
  /**
   * Appends a log line. Lines are written in order by the run's journal (worker/runner/durable.ts):
   * the promise resolves at once, and a database outage delays the write, never the run.
   */
  log(level: "info" | "warn" | "error", message: string): Promise<void>;
  /** What the run is doing beside progressing, shown on the run page ("waiting for node …"); null clears it. */
  detail(text: string | null): Promise<void>;
  /** Report step k of n; the ETA is estimated from this attempt's pace. */
  progress(step: number, total: number): Promise<void>;
}

export type Executor = (ctx: RunContext) => Promise<void>;

export class CancelledError extends Error {
  constructor() {
    super("run cancelled");
    this.name = "CancelledError";
  }
}

export function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new CancelledError();
}

/** A rollout-progress callback that reports at most ~`updates` times per pass (plus the final count). */
export function throttledProgress(ctx: Pick<RunContext, "progress">, updates = 20): (done: number, total: number) => void {
  let reported = 0;
  return (done, total) => {
    if (done === total || done - reported >= Math.max(1, Math.floor(total / updates))) {
      reported = done;
      ctx.progress(done, total).catch(() => {});
    }
  };
}
