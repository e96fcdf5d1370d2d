/**
 * tau2's metrics: a simulation succeeds when its reward is within 1e-6 of 1; pass^k per task is
 * C(c, k) / C(n, k) (c successes out of n trials), averaged over tasks, for k = 1 … the fewest trials
 * of any task. Trials whose episode could not run (outcome "error": the environment, the user simulator
 * or a node failed — lib/outcomes.ts) are not scored: they are counted apart as errored, never as failures.
 */
import { isEnvironmentError } from "../../../engine/machine";
import { parseTau2InstanceId, type Tau2Domain } from "../../../../lib/tau2/tasks";

/** A simulation succeeds when its reward is within 1e-6 of 1. */
export const isSuccess = (reward: number) => Math.abs(reward - 1) <= 1e-6;

function comb(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let r = 1n;
  for (let i = 0; i < k; i++) r = (r * BigInt(n - i)) / BigInt(i + 1);
  return r;
}

/** Exact-as-possible quotient of two non-negative bigints (Python int / int). */
function ratio(a: bigint, b: bigint): number {
  if (a <= BigInt(Number.MAX_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(a) / Number(b);
  const scale = 10n ** 18n;
  return Number((a * scale) / b) / 1e18;
}

/** pass^k for k = 1 … K (K = the smallest trial count of any task). */
export function passHatK(rewardsByTask: Map<string, number[]> | Record<string, number[]>): { k: number; value: number }[] {
  const trials = rewardsByTask instanceof Map ? [...rewardsByTask.values()] : Object.values(rewardsByTask);
  if (trials.length === 0) return [];
  const maxK = Math.min(...trials.map((t) => t.length));
  const out: { k: number; value: number }[] = [];
  for (let k = 1; k <= maxK; k++) {
    const perTask = trials.map((rewards) => ratio(comb(rewards.filter(isSuccess).length, k), comb(rewards.length, k)));
    out.push({ k, value: perTask.reduce((a, b) => a + b, 0) / perTask.length });
  }
  return out;
}

/** What an evaluation needs of a trajectory (the engine's TrajectoryResult has these fields). */
export interface Tau2TrialOutcome {
  instanceId: string;
  reward: number;
  terminationReason: string;
  /** "error": the trial could not run; it is left out of pass^k. Absent (older callers): an environment error still counts as one. */
  outcome?: string;
}

/** Whether a trial could not run (and is left out of the scores). */
const errored = (t: Tau2TrialOutcome) => (t.outcome !== undefined ? t.outcome === "error" : isEnvironmentError(t.terminationReason));

export interface Tau2TaskResult {
  taskId: string;
  /** The task's domain (from its instance id). */
  domain: Tau2Domain;
  trials: number;
  successes: number;
  rewards: number[];
  terminations: string[];
  /** Trials that could not run (not in `trials`). */
  errored: number;
}

/** Per-task results, in first-seen order, without their domain: `trials` are the trials that ran, `errored` the others. */
export function perTaskResults(trials: Tau2TrialOutcome[]): Omit<Tau2TaskResult, "domain">[] {
  return domainTaskResults(trials).map(({ domain: _domain, ...r }) => r);
}

/** Per-task results with their domain; trials that could not run are counted apart. A bare id is a retail task. */
export function domainTaskResults(trials: Tau2TrialOutcome[]): Tau2TaskResult[] {
  const byTask = new Map<string, Tau2TaskResult>();
  for (const t of trials) {
    const ref = parseTau2InstanceId(t.instanceId, "retail")!;
    const key = `${ref.domain}/${ref.taskId}`;
    const r = byTask.get(key) ?? { taskId: ref.taskId, domain: ref.domain, trials: 0, successes: 0, rewards: [], terminations: [], errored: 0 };
    r.terminations.push(t.terminationReason);
    if (errored(t)) r.errored++;
    else {
      r.trials++;
      r.rewards.push(t.reward);
      if (isSuccess(t.reward)) r.successes++;
    }
    byTask.set(key, r);
  }
  return [...byTask.values()];
}

function metricsOf(tasks: Tau2TaskResult[], prefix: string): Record<string, number> {
  const out: Record<string, number> = {};
  const scored = tasks.filter((t) => t.trials > 0);
  if (scored.length) {
    for (const { k, value } of passHatK(new Map(scored.map((t) => [`${t.domain}/${t.taskId}`, t.rewards])))) out[`${prefix}pass^${k}`] = value;
    const rewards = scored.flatMap((t) => t.rewards);
    out[`${prefix}reward/mean`] = rewards.reduce((s, r) => s + r, 0) / rewards.length;
    // Avg@k: the mean over tasks of each task's success rate (the report's τ² columns).
    out[`${prefix}avg`] = scored.reduce((s, t) => s + t.successes / t.trials, 0) / scored.length;
  }
  out[`${prefix}tasks`] = scored.length;
  out[`${prefix}trials`] = scored.reduce((s, t) => s + t.trials, 0);
  const left = tasks.reduce((s, t) => s + t.errored, 0);
  if (left) out[`${prefix}errored`] = left;
  return out;
}

/**
 * Evaluation metrics: `val/tau2/pass^k`, the mean reward and the task count over every task of the run,
 * and the same per domain under `val/tau2/<domain>/` (with `avg`, the domain's Avg@k, for the report).
 */
export function tau2EvalMetrics(trials: Tau2TrialOutcome[]): Record<string, number> {
  const tasks = domainTaskResults(trials);
  if (tasks.length === 0) return {};
  const all = metricsOf(tasks, "val/tau2/");
  delete all["val/tau2/avg"];
  const out = { ...all };
  for (const domain of new Set(tasks.map((t) => t.domain))) Object.assign(out, metricsOf(tasks.filter((t) => t.domain === domain), `val/tau2/${domain}/`));
  return out;
}
