/**
 * What BFCL episodes share when they are scored: when a task could not be run (it is then left out of the
 * scores, never counted as 0), and the outcome as checklist verdicts the trajectory view places on the
 * turn they judge.
 */
import { describeBfclCheck, type BfclOutcome } from "../../../../lib/bfcl/outcome";
import type { ItemVerdict } from "../../../engine/reward";
import { isEnvironmentError, Termination } from "../../../engine/machine";
import type { EpisodeScoreContext } from "../../../engine/types";

/** Long state reprs and results are kept shortened in the stored outcome. */
export const shorten = (s: string, max = 2000) => (s.length > max ? `${s.slice(0, max)}… (${s.length} characters)` : s);

/**
 * Why the episode says nothing about the policy's ability, or null: a generation the node failed to give
 * (HTTP error, timeout), or a world that could not be created or broke (e.g. data missing for a long-context
 * task, memory prerequisites that could not run), ends the episode before the task could be played.
 */
export function notScoredReason(ctx: EpisodeScoreContext): string | null {
  if (isEnvironmentError(ctx.terminationReason)) {
    const failed = ctx.records.find((r) => r.error?.code && ctx.terminationReason.endsWith(r.error.code));
    return `the environment failed (${ctx.terminationReason})${failed?.text ? `: ${shorten(failed.text, 300)}` : ""}`;
  }
  if (ctx.terminationReason !== Termination.generationFailed) return null;
  const failed = ctx.records.find((r) => r.error?.code === "GENERATION_FAILED");
  const payload = failed?.error?.payload;
  return `the policy node failed to generate${typeof payload === "string" ? `: ${shorten(payload, 300)}` : ""}`;
}

/** Per user turn, the index (within the turn) of its last act step: where a verdict on the turn is shown. */
function lastActStepPerTurn(ctx: EpisodeScoreContext): Map<number, number> {
  const counts = new Map<number, number>();
  for (const r of ctx.records) if (r.role === "act") counts.set(r.userTurn, (counts.get(r.userTurn) ?? 0) + 1);
  return new Map([...counts].map(([turn, n]) => [turn, n - 1]));
}

/**
 * The outcome as programmatic verdicts: one per checked turn for multi-turn tasks (passed up to the failing
 * one, which names the check), one for the whole reply otherwise.
 */
export function outcomeVerdicts(outcome: BfclOutcome, ctx: EpisodeScoreContext, expectedTurns = 1): ItemVerdict[] {
  const steps = lastActStepPerTurn(ctx);
  const lastTurn = ctx.records.reduce((m, r) => Math.max(m, r.userTurn), 0);
  const verdict = (userTurn: number, itemId: string, question: string, passed: boolean, error?: string): ItemVerdict => ({
    checklist: 0,
    userTurn,
    step: steps.get(userTurn) ?? 0,
    itemId,
    question,
    weight: 1,
    required: true,
    passed,
    source: "programmatic",
    ...(error ? { error } : {}),
  });
  if (!outcome.scored) return [verdict(lastTurn, "not_scored", `The task could not be run (${outcome.notScoredReason ?? "unknown"}); it is not scored`, false)];
  const check = outcome.check;
  if (expectedTurns <= 1 && !outcome.turns) {
    return [verdict(0, "answer", outcome.valid ? "The reply passes BFCL's checker" : `BFCL check failed: ${describeBfclCheck(outcome)}`, outcome.valid, check?.message)];
  }
  if (check?.errorType === "multi_turn:force_terminated") {
    return [verdict(lastTurn, "all_turns", `Every user turn was played (${describeBfclCheck(outcome)})`, false, check.message)];
  }
  const failedTurn = outcome.valid ? expectedTurns : (check?.turn ?? lastTurn);
  const out: ItemVerdict[] = [];
  for (let t = 0; t < Math.min(failedTurn, expectedTurns); t++) out.push(verdict(t, `turn_${t + 1}`, `Turn ${t + 1}: state and responses match the ground truth`, true));
  if (!outcome.valid) out.push(verdict(failedTurn, `turn_${failedTurn + 1}`, `Turn ${failedTurn + 1}: ${describeBfclCheck(outcome).replace(/^turn \d+: /, "")}`, false, check?.message));
  return out;
}
