/**
 * What a run config will do, in words, for the new-run form: rollouts and generations per step, and how
 * long it should take on the chosen node at the pace its last committed steps ran (nodes.throughput).
 */
import type { RunConfig } from "@/contracts/run-config";
import { formatDuration } from "./format";

export interface NodePace {
  steps: number;
  secondsPerRollout: number | null;
  generationsPerRollout: number | null;
  /** null when the steps measured ran other models on the node. */
  model: string | null;
}

const n = (x: number) => Math.round(x).toLocaleString("en-US");

/** The most policy generations one rollout can take: each act turn, plus its rehearsal in the rehearse paradigm. */
export function maxGenerationsPerRollout(c: RunConfig): number {
  const perTurn = c.rollout.paradigm === "rehearse" ? 2 : 1;
  return Math.min(c.rollout.maxAssistantTurns * perTurn, c.rollout.maxMicroSteps);
}

export function rolloutsPerStep(c: RunConfig): number {
  return c.kind === "train" ? c.data.instancesPerStep * c.data.rolloutsPerInstance : c.data.instancesPerStep * c.trialsPerTask;
}

function generationsText(c: RunConfig, pace: NodePace | null | undefined): string {
  const rollouts = rolloutsPerStep(c);
  if (pace?.generationsPerRollout != null) {
    return `≈ ${n(rollouts * pace.generationsPerRollout)} generations per step (${pace.generationsPerRollout.toFixed(1)} per rollout on this node)`;
  }
  const most = maxGenerationsPerRollout(c);
  return `up to ${n(rollouts * most)} generations per step (at most ${most} per rollout: ${c.rollout.maxAssistantTurns} act turns${c.rollout.paradigm === "rehearse" ? ", each with its rehearsal" : ""})`;
}

export function describePlan(c: RunConfig, pace?: NodePace | null): string {
  const rollouts = rolloutsPerStep(c);
  const paradigm = `${c.rollout.paradigm} paradigm${c.rollout.shadowExecution ? " with shadow execution" : ""}${c.reward.rehearsalGrounding > 0 ? ` (rehearsals grounded, weight ${c.reward.rehearsalGrounding})` : ""}`;
  const where = `on node "${c.policy.node}" (${c.policy.model})`;
  if (c.kind === "train") {
    return (
      `${c.schedule.steps} steps × ${c.data.instancesPerStep} tasks × ${c.data.rolloutsPerInstance} rollouts = ${n(rollouts)} rollouts per step, ` +
      `${n(rollouts * c.schedule.steps)} in all; ${generationsText(c, pace)}; ${paradigm} ${where}; ` +
      `checkpoint every ${c.schedule.saveEvery}, evaluate every ${c.schedule.evalEvery}.`
    );
  }
  const testTime = c.testTime.enabled ? `, each after ${c.testTime.attempts} private rehearsals (${c.testTime.mode})` : "";
  return `evaluation: ${c.data.instancesPerStep} tasks × ${c.trialsPerTask} trial(s) = ${n(rollouts)} rollouts${testTime}; ${generationsText(c, pace)}; ${paradigm}${c.fidelityProbe ? ", fidelity probe on" : ""} ${where}.`;
}

/** The time estimate, or why there is none. `pace` undefined: still loading. */
export function describeEstimate(c: RunConfig, pace: NodePace | null | undefined): string {
  if (pace === undefined) return `Estimating the time from node "${c.policy.node}"'s recent steps…`;
  if (!pace || pace.secondsPerRollout == null) return `No time estimate: node "${c.policy.node}" has no committed steps yet.`;
  const source = `${pace.secondsPerRollout.toFixed(pace.secondsPerRollout < 10 ? 2 : 1)} s per rollout over its last ${pace.steps} step${pace.steps === 1 ? "" : "s"}${pace.model ? "" : ", other models"}`;
  // Test-time rehearsal runs its private attempts before each real rollout.
  const factor = c.kind === "eval" && c.testTime.enabled ? 1 + c.testTime.attempts : 1;
  if (c.kind === "train") {
    const seconds = c.schedule.steps * rolloutsPerStep(c) * pace.secondsPerRollout;
    return `Estimated time: ≈ ${formatDuration(seconds)} for the ${c.schedule.steps} training steps at the node's recent pace (${source}); evaluations add to it.`;
  }
  const seconds = rolloutsPerStep(c) * factor * pace.secondsPerRollout;
  return `Estimated time: ≈ ${formatDuration(seconds)} at the node's recent pace (${source}).`;
}
