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
  log(level: "info" | "warn" | "error", message: string): Promise<void>;
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
