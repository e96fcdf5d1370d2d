/**
 * One BFCL task's outcome as stored with its trajectory (the episode score's `detail.bfcl`, kept in the
 * trajectory summary's judgements): scored or not (and why), valid or not, and the check that failed —
 * which turn, the state difference or the missing responses (multi-turn), the checker's error type and
 * messages (single-turn), the reply that was checked (memory). Validated with zod where it is read back.
 */
import { z } from "zod";

export const stateDifferenceSchema = z.object({ attribute: z.string(), model: z.string(), groundTruth: z.string() });

export const bfclCheckSchema = z.object({
  /** Upstream's error type, e.g. `multi_turn:instance_state_mismatch`, `simple_function_checker:wrong_count`. */
  errorType: z.string(),
  /** Upstream's error message. */
  message: z.string(),
  /** 0-based turn that failed (multi-turn). */
  turn: z.number().int().min(0).optional(),
  /** instance_state_mismatch: the class whose public attributes differ, and how. */
  className: z.string().optional(),
  differences: z.array(stateDifferenceSchema).optional(),
  /** execution_response_mismatch: ground-truth results the model never produced. */
  missing: z.array(z.string()).optional(),
  /** The checker's further messages (single-turn). */
  details: z.array(z.string()).optional(),
});
export type BfclCheck = z.infer<typeof bfclCheckSchema>;

export const bfclOutcomeSchema = z.object({
  category: z.string(),
  taskId: z.string(),
  /** False when the task could not be run (e.g. the policy node failed): it is left out of the scores. */
  scored: z.boolean(),
  notScoredReason: z.string().optional(),
  valid: z.boolean(),
  /** The failing check (absent when valid or not scored). */
  check: bfclCheckSchema.optional(),
  /** The episode's termination reason. */
  termination: z.string(),
  /** Multi-turn: user turns played and in the task. */
  turns: z.object({ played: z.number().int().min(0), expected: z.number().int().min(0) }).optional(),
  /** Memory: the reply the answer was looked for in. */
  answer: z.string().optional(),
  /** Memory: how the prerequisite conversations ended, and the memory they left (shortened). */
  prerequisites: z.object({ entries: z.array(z.object({ id: z.string(), termination: z.string() })), memory: z.string() }).optional(),
});
export type BfclOutcome = z.infer<typeof bfclOutcomeSchema>;

/** Reads the BFCL outcome from a stored episode-score detail (`{ bfcl: … }`), or null. */
export function bfclOutcomeOf(detail: unknown): BfclOutcome | null {
  if (typeof detail !== "object" || detail === null || !("bfcl" in detail)) return null;
  const parsed = bfclOutcomeSchema.safeParse((detail as { bfcl: unknown }).bfcl);
  return parsed.success ? parsed.data : null;
}

/** The BFCL outcome among a stored trajectory summary's judgements (the episode score is the last one). */
export function bfclOutcomeOfSummary(summary: unknown): BfclOutcome | null {
  const judgements = typeof summary === "object" && summary !== null ? (summary as { judgements?: unknown }).judgements : undefined;
  if (!Array.isArray(judgements)) return null;
  for (let i = judgements.length - 1; i >= 0; i--) {
    const j = judgements[i] as { detail?: unknown } | null;
    const outcome = bfclOutcomeOf(j?.detail);
    if (outcome) return outcome;
  }
  return null;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** One line naming the failing check, e.g. "turn 3: instance state of GorillaFileSystem differs (cwd, root)". */
export function describeBfclCheck(outcome: BfclOutcome): string {
  if (!outcome.scored) return `not scored: ${outcome.notScoredReason ?? "the task could not be run"}`;
  if (outcome.valid) return "passed";
  const c = outcome.check;
  if (!c) return "failed";
  const where = c.turn !== undefined ? `turn ${c.turn + 1}: ` : "";
  switch (c.errorType) {
    case "multi_turn:instance_state_mismatch":
      return `${where}instance state of ${c.className ?? "a class"} differs from the ground truth (${(c.differences ?? []).map((d) => d.attribute).join(", ")})`;
    case "multi_turn:execution_response_mismatch":
      return `${where}missing ground-truth response${(c.missing ?? []).length === 1 ? "" : "s"}: ${(c.missing ?? []).map((m) => clip(m, 80)).join("; ")}`;
    case "multi_turn:empty_turn_model_response":
      return `${where}the model made no call where the ground truth does`;
    case "multi_turn:force_terminated":
      return `force-terminated after ${outcome.turns?.played ?? "?"} of ${outcome.turns?.expected ?? "?"} turns (${outcome.termination})`;
    default:
      return `${where}${c.errorType}: ${clip(c.details?.[0] ?? c.message, 200)}`;
  }
}
