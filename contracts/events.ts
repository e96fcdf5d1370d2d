import { z } from "zod";

/**
 * A change signal on the Postgres channel `envace_events` (triggers `envace_notify_*` in prisma/migrations):
 * what changed, never the data itself. The triggers emit one only when something a
 * view shows has changed (never for a bare heartbeat); the server fans them out over SSE
 * (app/api/events) and the browser maps each to query invalidations (app/_lib/live.ts).
 * - `run`: a run row a list or the run page shows (status, progress, metrics, error, …); `id` = run id
 * - `step`: a committed training or evaluation step (charts, trajectories); `id` = run id
 * - `log`: new log lines; `id` = run id
 * - `checkpoint`: a saved checkpoint; `id` = run id
 * - `node`: a node added, changed (health, models, …) or removed; `id` = node id
 */
export const changeEventSchema = z.object({
  t: z.enum(["run", "step", "log", "checkpoint", "node"]),
  id: z.string(),
  status: z.string().optional(),
});
export type ChangeEvent = z.infer<typeof changeEventSchema>;
