/**
 * What an episode's outcome means, shared by the worker (which decides it), the API and the pages (which
 * show and count it). One word per stored trajectory (`trajectory.outcome`):
 *
 * - `success`: the benchmark's own verdict passed — τ²: reward 1.0 by its evaluator; BFCL: upstream's
 *   checker passed; checklist tasks (built-in domains, CM2 datasets, MCP task lists): every checklist item
 *   of every turn passed. A partial checklist reward is NOT a success.
 * - `failure`: the episode ran and the policy did not succeed (including its own parse errors, bad tool
 *   calls, turn and length limits).
 * - `error`: the episode could not run or could not be scored for reasons outside the policy (an
 *   infrastructure error: `errorKind` and `errorCause` say which and why). Errored episodes are left out
 *   of every score (reward means, Avg@k, pass@k, pass^k, per-category metrics) and of training updates.
 *
 * The reference's `won` (episode reward E > 0) is kept as a training metric of its own
 * (`episode/won_avg@k`, `episode/won_pass@k`), never called success.
 */

export const outcomes = ["success", "failure", "error"] as const;
export type Outcome = (typeof outcomes)[number];

/** Why an episode errored: the part of the infrastructure that failed. */
export const errorKinds = ["environment", "user_simulator", "judge", "tool_simulator", "policy_node", "context", "scoring", "task"] as const;
export type ErrorKind = (typeof errorKinds)[number];

export const errorKindLabels: Record<ErrorKind, string> = {
  environment: "environment failed",
  user_simulator: "user simulator failed",
  judge: "judge failed",
  tool_simulator: "tool simulator failed",
  policy_node: "policy node failed",
  context: "prompt does not fit the model's context",
  scoring: "could not be scored",
  task: "task cannot be scored",
};

/** A label for a stored kind (rows written before a kind existed show the raw value). */
export function errorKindLabel(kind: string | null | undefined): string {
  return kind && kind in errorKindLabels ? errorKindLabels[kind as ErrorKind] : (kind ?? "unknown cause");
}

/**
 * The infrastructure part a termination reason alone blames, or null when the reason is the policy's
 * (or a normal ending). The worker refines this with the episode's records (e.g. a first prompt that
 * already fills the context, a scoring failure); the migration that backfilled old rows mirrors it in SQL.
 */
export function errorKindOfTermination(reason: string): ErrorKind | null {
  if (reason.startsWith("environment_error:")) return "environment";
  switch (reason) {
    case "user_error":
    case "user_stalled":
    case "user_garbage":
      return "user_simulator";
    case "judge_failed":
    case "interaction_exception":
      return "judge";
    case "simulator_failed":
      return "tool_simulator";
    case "generation_failed":
      return "policy_node";
    case "empty_checklist":
      return "task";
    default:
      return null;
  }
}

/** How a list or a report says what was left out: "2 errored (user simulator failed: 2)". */
export function describeErrored(byKind: Partial<Record<string, number>>): string {
  const parts = Object.entries(byKind)
    .filter(([, n]) => (n ?? 0) > 0)
    .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
    .map(([k, n]) => `${errorKindLabel(k)}: ${n}`);
  return parts.join(", ");
}
