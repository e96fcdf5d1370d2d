import { z } from "zod";

/** pg-boss queue that carries run jobs from the web app to workers. */
export const RUN_QUEUE = "envace-run";

export const runJobSchema = z.object({
  runId: z.string().uuid(),
  /** Why the job was sent: a new run, a user resume, or crash recovery. */
  reason: z.enum(["created", "resumed", "recovered"]),
});
export type RunJob = z.infer<typeof runJobSchema>;

export const runStatuses = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
export type RunStatus = (typeof runStatuses)[number];
export const terminalStatuses: readonly RunStatus[] = ["succeeded", "failed", "cancelled"];

/** Seconds without a heartbeat after which a running run counts as orphaned (its worker died). */
export const HEARTBEAT_STALE_SECONDS = Number(process.env.ENVACE_HEARTBEAT_STALE_S ?? 30);
