import { z } from "zod";

/** pg-boss queue that carries run jobs from the web app to workers. */
export const RUN_QUEUE = "envace-run";

export const runJobSchema = z.object({
  runId: z.string().uuid(),
  /** Why the job was sent: a new run, a user resume, or crash recovery. */
  reason: z.enum(["created", "resumed", "recovered"]),
});
export type RunJob = z.infer<typeof runJobSchema>;

/**
 * How run jobs are sent. A job lives only from its delivery to the run's claim: the worker completes it
 * as soon as it holds the run (worker/runner/worker.ts), and from then on the run's claim, heartbeat and
 * the sweep keep it, however long it runs. The expiry therefore bounds only a worker that died between
 * taking a job and claiming its run (pg-boss then delivers the job again); ENVACE_RUN_JOB_EXPIRE_S
 * overrides it (tests).
 */
export function runJobOptions(): { retryLimit: number; retryDelay: number; expireInSeconds: number } {
  const raw = Number(process.env.ENVACE_RUN_JOB_EXPIRE_S);
  return { retryLimit: 3, retryDelay: 5, expireInSeconds: Number.isFinite(raw) && raw >= 1 ? Math.floor(raw) : 15 * 60 };
}

export const runStatuses = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
export type RunStatus = (typeof runStatuses)[number];
export const terminalStatuses: readonly RunStatus[] = ["succeeded", "failed", "cancelled"];

/** Seconds without a heartbeat after which a running run counts as orphaned (its worker died). */
export const HEARTBEAT_STALE_SECONDS = Number(process.env.ENVACE_HEARTBEAT_STALE_S ?? 30);
