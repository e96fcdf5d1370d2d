/**
 * What a run config will do, in words, for the new-run form: rollouts and generations per step, and how
 * long it should take on the chosen node at the pace its last committed steps ran (nodes.throughput).
 */
import type { RunConfig } from "@/contracts/run-config";
import { evaluationTasks, forcedEvaluationParadigm } from "@/lib/eval-tasks";
import { formatDuration } from "./format";

export interface NodePace {
  steps: number;
  secondsPerRollout: number | null;
  generationsPerRollout: number | null;
  /** null when the steps measured ran other models on the node. */
  model: string | null;
}

const n = (x: number) => Math.round(x).toLocaleString("en-US");

/** The paradigm the rollouts run in: an evaluation of tau2 or BFCL runs the real tools whatever the config says. */
function paradigmOf(c: RunConfig): RunConfig["rollout"]["paradigm"] {
  return (c.kind === "eval" && forcedEvaluationParadigm(c.data.dataset)?.paradigm) || c.rollout.paradigm;
}

/** The most policy generations one rollout can take: each act turn, plus its rehearsal in the rehearse paradigm. */
export function maxGenerationsPerRollout(c: RunConfig): number {
  const perTurn = paradigmOf(c) === "rehearse" ? 2 : 1;
  return Math.min(c.rollout.maxAssistantTurns * perTurn, c.rollout.maxMicroSteps);
}

/** Rollouts of one training step, or of the whole evaluation; null when the evaluation's task count is not known here (tau2: the whole split). */
export function rolloutsPerStep(c: RunConfig): number | null {
  if (c.kind === "train") return c.data.instancesPerStep * c.data.rolloutsPerInstance;
  const { count } = evaluationTasks(c);
  return count === null ? null : count * c.trialsPerTask;
}

function generationsText(c: RunConfig, pace: NodePace | null | undefined): string {
  const rollouts = rolloutsPerStep(c);
  if (rollouts === null) return `up to ${maxGenerationsPerRollout(c)} generations per rollout`;
  if (pace?.generationsPerRollout != null) {
    return `≈ ${n(rollouts * pace.generationsPerRollout)} generations per step (${pace.generationsPerRollout.toFixed(1)} per rollout on this node)`;
  }
  const most = maxGenerationsPerRollout(c);
  return `up to ${n(rollouts * most)} generations per step (at most ${most} per rollout: ${c.rollout.maxAssistantTurns} act turns${paradigmOf(c) === "rehearse" ? ", each with its rehearsal" : ""})`;
}

/** What a training run's evaluations cover besides (or instead of) its own split. */
function suitesText(c: RunConfig): string {
  const suites = c.schedule.evalSuites;
  if (suites.length === 0) return "";
  const list = suites.map((s) => `${s.name} (${s.dataset}, ${s.instanceIds.length ? `${s.instanceIds.length} task${s.instanceIds.length === 1 ? "" : "s"}` : `${s.limit} tasks`} × ${s.repeats})`).join(", ");
  return c.schedule.evalOwnSplit ? ` on its own split and ${suites.length === 1 ? "the suite" : "the suites"} ${list}` : ` on ${suites.length === 1 ? "the suite" : "the suites"} ${list} only`;
}

export function describePlan(c: RunConfig, pace?: NodePace | null): string {
  const rollouts = rolloutsPerStep(c) ?? 0;
  const forced = c.kind === "eval" ? forcedEvaluationParadigm(c.data.dataset) : null;
  const paradigm = forced
    ? `${forced.paradigm} paradigm (${forced.why})`
    : `${c.rollout.paradigm} paradigm${c.rollout.shadowExecution ? " with shadow execution" : ""}${c.reward.rehearsalGrounding > 0 ? ` (rehearsals grounded, weight ${c.reward.rehearsalGrounding})` : ""}`;
  const ckpt = c.policy.checkpoint;
  const where = ckpt
    ? `of the checkpoint of run ${ckpt.run} at ${ckpt.step === "latest" ? "its latest step" : `step ${ckpt.step}`} (trained from ${c.policy.model}) on node "${c.policy.node}"`
    : `on node "${c.policy.node}" (${c.policy.model})`;
  if (c.kind === "train") {
    return (
      `${c.schedule.steps} steps × ${c.data.instancesPerStep} tasks × ${c.data.rolloutsPerInstance} rollouts = ${n(rollouts)} rollouts per step, ` +
      `${n(rollouts * c.schedule.steps)} in all; ${generationsText(c, pace)}; ${paradigm} ${where}; ` +
      `checkpoint every ${c.schedule.saveEvery}, evaluate every ${c.schedule.evalEvery}${suitesText(c)}` +
      // Only when it differs from the default (a state after every step): a crash then replays steps.
      `${(c.schedule.stateEvery ?? 1) > 1 ? `; training state every ${c.schedule.stateEvery} steps (a resume replays up to ${c.schedule.stateEvery - 1})` : ""}.`
    );
  }
  const testTime = c.testTime.enabled ? `, each after ${c.testTime.attempts} private rehearsals (${c.testTime.mode})` : "";
  const tasks = evaluationTasks(c);
  const plan =
    tasks.count === null
      ? `${tasks.source} × ${c.trialsPerTask} trial(s)`
      : `${tasks.atMost ? "up to " : ""}${n(tasks.count)} task${tasks.count === 1 ? "" : "s"} (${tasks.source}) × ${c.trialsPerTask} trial(s) = ${tasks.atMost ? "up to " : ""}${n(rollouts)} rollouts`;
  const passes = c.repeats > 1 ? `, in ${c.repeats} independent passes (${n(rollouts * c.repeats)} rollouts in all; Avg@k is their mean)` : "";
  return `evaluation: ${plan}${passes}${testTime}; ${generationsText(c, pace)}; ${paradigm}${c.fidelityProbe ? ", fidelity probe on" : ""} ${where}.`;
}

/** The time estimate, or why there is none. `pace` undefined: still loading. */
export function describeEstimate(c: RunConfig, pace: NodePace | null | undefined): string {
  if (pace === undefined) return `Estimating the time from node "${c.policy.node}"'s recent steps…`;
  if (!pace || pace.secondsPerRollout == null) return `No time estimate: node "${c.policy.node}" has no committed steps yet.`;
  const source = `${pace.secondsPerRollout.toFixed(pace.secondsPerRollout < 10 ? 2 : 1)} s per rollout over its last ${pace.steps} step${pace.steps === 1 ? "" : "s"}${pace.model ? "" : ", other models"}`;
  // Test-time rehearsal runs its private attempts before each real rollout.
  const factor = c.kind === "eval" && c.testTime.enabled ? 1 + c.testTime.attempts : 1;
  if (c.kind === "train") {
    const seconds = c.schedule.steps * (rolloutsPerStep(c) ?? 0) * pace.secondsPerRollout;
    return `Estimated time: ≈ ${formatDuration(seconds)} for the ${c.schedule.steps} training steps at the node's recent pace (${source}); evaluations add to it.`;
  }
  const rollouts = rolloutsPerStep(c);
  if (rollouts === null) return `No time estimate: the number of tasks (${evaluationTasks(c).source}) is known once the run starts; ${source}.`;
  const seconds = rollouts * c.repeats * factor * pace.secondsPerRollout;
  return `Estimated time: ≈ ${formatDuration(seconds)} at the node's recent pace (${source}).`;
}
