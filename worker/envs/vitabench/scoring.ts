/**
 * VitaBench's scoring as upstream runs it (96f3b85):
 * - vita/evaluator/evaluator.py `evaluate_simulation`: a run ended by too many errors, max steps or an invalid agent
 *   message scores 0 without the judge; a task without evaluation criteria scores 1; otherwise the `trajectory`
 *   evaluation (evaluator_traj.py TrajectoryEvaluator.calculate_reward, evaluator.ts): the sliding-window rubric judge,
 *   reward 1 only when every rubric is met, the met share as the partial score (reward_breakdown NL_ASSERTION);
 * - vita/metrics/agent_metrics.py `compute_metrics`: success = reward 1.0; avg_reward (pandas mean); pass^k for k up to
 *   the fewest trials of a task (C(c,k)/C(n,k) per task, pandas mean over tasks sorted by id); pass@k and average@k for
 *   k = 1 … num_trials over the tasks with at least k trials (Python sums); the mean partial score.
 * Float results follow upstream's summation order (numpy's pairwise sum where pandas sums), so they match bit for bit.
 */
import { intTrueDiv } from "../../../lib/python/numbers";
import { compareStrings, type PyValue } from "../../../lib/python/values";
import type { VitaTask } from "./data";
import { applyVerdicts, finalScore, initialRubrics, JudgeReplyError, MetValidationError, parseJudgeReply, slidingWindows, windowPrompts, type JudgeMessage, type RubricState } from "./evaluator";
import type { Language } from "./world";

/** Upstream's TerminationReason values. */
export const VITA_TERMINATIONS = ["user_stop", "agent_stop", "max_steps", "too_many_errors", "invalid_agent_message"] as const;
export type VitaTermination = (typeof VITA_TERMINATIONS)[number];
/** Terminations evaluate_simulation scores 0 without a judge. */
export const PREMATURE: ReadonlySet<string> = new Set(["too_many_errors", "max_steps", "invalid_agent_message"]);

export interface RubricVerdict {
  /** "rubric_0", … as the judge prompt names it. */
  key: string;
  rubric: string;
  met: boolean;
  justification: string;
  /** The window whose reply last set it (1-based); absent: no window spoke of it. */
  window?: number;
}

export interface JudgeWindow {
  window: number;
  total: number;
  /** Global 1-based positions of the window's first and last message (as the prompt numbers them). */
  first: number;
  last: number;
  system: string;
  user: string;
  reply: string;
}

export interface TrajectoryScore {
  reward: number;
  /** reward_breakdown NL_ASSERTION: the met share; null where upstream gives no breakdown (no criteria, premature). */
  partial: number | null;
  rubrics: RubricVerdict[];
  windows: JudgeWindow[];
  /** Why no judge ran (upstream's info note). */
  note?: string;
}

/** One judge call: the window's prompts in, the judge's reply text out (throws when the call itself fails). */
export type JudgeCall = (prompt: { window: number; total: number; system: string; user: string }) => Promise<string>;

/** Rubric states as the episode's verdicts: met via pydantic's bool, the justification as text. */
function verdictsOf(states: Map<string, RubricState>, met: boolean[]): RubricVerdict[] {
  return [...states].map(([key, s], i) => ({
    key,
    rubric: s.rubric,
    met: met[i]!,
    justification: s.justification as string, // finalScore checked it is a str
    ...(s.window !== undefined ? { window: s.window } : {}),
  }));
}

/**
 * evaluate_simulation for one run: premature endings score 0, no criteria 1, else the judge over the trajectory's
 * windows. Throws JudgeReplyError / MetValidationError where upstream raises (the caller reports a judge failure).
 */
export async function scoreTrajectory(input: {
  task: VitaTask;
  termination: string;
  messages: readonly JudgeMessage[];
  language: Language;
  template: string;
  judge: JudgeCall;
}): Promise<TrajectoryScore> {
  const { task, termination, language } = input;
  if (PREMATURE.has(termination)) return { reward: 0, partial: null, rubrics: [], windows: [], note: `Simulation terminated prematurely. Termination reason: ${termination}` };
  if (task.noCriteria) return { reward: 1, partial: null, rubrics: [], windows: [], note: "No evaluation criteria" };
  if (!task.hasExpectedStates && !(task.overallRubrics ?? []).length) return { reward: 1, partial: 1, rubrics: [], windows: [], note: "No rubric to evaluate" };
  const time = (task.environment.get("time") ?? "") as string;
  let states = initialRubrics(task);
  const windows = slidingWindows(input.messages);
  const records: JudgeWindow[] = [];
  for (let i = 0; i < windows.length; i++) {
    const start = i * 8;
    const { system, user } = windowPrompts(input.template, task, time, language, windows[i]!, i + 1, windows.length, start, states);
    const reply = await input.judge({ window: i + 1, total: windows.length, system, user });
    records.push({ window: i + 1, total: windows.length, first: start + 1, last: start + windows[i]!.length, system, user, reply });
    states = applyVerdicts(states, parseJudgeReply(reply, i + 1), i + 1, reply);
  }
  const { reward, partial, met } = finalScore(states);
  return { reward, partial, rubrics: verdictsOf(states, met), windows: records };
}

/** The Python exception name upstream raises for a scoring failure (vita:judge-prompts prints it). */
export function pyErrorName(e: unknown): string {
  if (e instanceof JudgeReplyError) return e.pyType;
  if (e instanceof MetValidationError) return "ValidationError";
  if (e instanceof Error && /divides by zero/.test(e.message)) return "ZeroDivisionError";
  return e instanceof Error ? e.name : "Error";
}

// ---------------------------------------------------------------------------------------------------------------
// compute_metrics

/** numpy's pairwise summation of float64 (np.add.reduce, what pandas' sum and mean use). */
export function numpySum(a: readonly number[], from = 0, n = a.length): number {
  if (n < 8) {
    let r = 0;
    for (let i = 0; i < n; i++) r += a[from + i]!;
    return r;
  }
  if (n <= 128) {
    const r = a.slice(from, from + 8);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j]! += a[from + i + j]!;
    let res = r[0]! + r[1]! + (r[2]! + r[3]!) + (r[4]! + r[5]! + (r[6]! + r[7]!));
    for (; i < n; i++) res += a[from + i]!;
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return numpySum(a, from, n2) + numpySum(a, from + n2, n - n2);
}
const pandasMean = (a: readonly number[]) => numpySum(a) / a.length;
const pySum = (a: readonly number[]) => a.reduce((s, x) => s + x, 0);

function comb(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let r = 1n;
  for (let i = 0; i < k; i++) r = (r * BigInt(n - i)) / BigInt(i + 1);
  return r;
}
/** pass_hat_k(n, c, k) = C(c, k) / C(n, k). */
export const passHatK = (n: number, c: number, k: number) => intTrueDiv(comb(c, k), comb(n, k));
/** pass_at_k(n, c, k) = 1 − C(n−c, k) / C(n, k) (1 when fewer than k failures). */
export function passAtK(n: number, c: number, k: number): number {
  if (n < k || c > n) return 0;
  if (n - c >= k) return 1 - intTrueDiv(comb(n - c, k), comb(n, k));
  return 1;
}
/** average_at_k: the task's mean reward when it has at least k trials. */
export const averageAtK = (rewards: readonly number[], k: number) => (rewards.length < k || k === 0 ? 0 : pySum(rewards) / rewards.length);
export const isSuccessful = (reward: number) => reward === 1;

export interface ScoredRun {
  taskId: string;
  reward: number;
  partial: number | null;
}

export interface VitaMetrics {
  avgReward: number;
  avgPartial: number | null;
  /** k → value, k = 1 … */
  passHatK: Map<number, number>;
  passAtK: Map<number, number>;
  avgAtK: Map<number, number>;
  tasks: number;
  trials: number;
}

/** compute_metrics over the runs (in run order), with `numTrials` the configured trials per task. Null with no runs. */
export function vitaMetrics(runs: readonly ScoredRun[], numTrials: number): VitaMetrics | null {
  if (runs.length === 0) return null;
  const byTask = new Map<string, ScoredRun[]>();
  for (const r of runs) byTask.set(r.taskId, [...(byTask.get(r.taskId) ?? []), r]);
  // pandas groupby sorts its keys.
  const groups = [...byTask.entries()].sort((a, b) => compareStrings(a[0], b[0])).map(([, rs]) => rs);
  let maxK = numTrials;
  const minK = Math.min(...groups.map((g) => g.length));
  if (minK < maxK) maxK = minK;
  const passHat = new Map<number, number>();
  for (let k = 1; k <= maxK; k++) passHat.set(k, pandasMean(groups.map((g) => passHatK(g.length, g.filter((r) => isSuccessful(r.reward)).length, k))));
  const passAt = new Map<number, number>();
  const avgAt = new Map<number, number>();
  for (let k = 1; k <= numTrials; k++) {
    const eligible = groups.filter((g) => g.length >= k);
    if (!eligible.length) continue;
    passAt.set(k, pySum(eligible.map((g) => passAtK(g.length, g.filter((r) => isSuccessful(r.reward)).length, k))) / eligible.length);
    avgAt.set(k, pySum(eligible.map((g) => averageAtK(g.map((r) => r.reward), k))) / eligible.length);
  }
  const partials = runs.flatMap((r) => (r.partial === null ? [] : [r.partial]));
  return {
    avgReward: pandasMean(runs.map((r) => r.reward)),
    avgPartial: partials.length ? pySum(partials) / partials.length : null,
    passHatK: passHat,
    passAtK: passAt,
    avgAtK: avgAt,
    tasks: groups.length,
    trials: runs.length,
  };
}

/** The verdicts of vita:score's input as a run's reward and partial (evaluate_simulation without the judge call). */
export function rewardOfVerdicts(termination: string, verdicts: readonly boolean[] | null): { reward: number; partial: number | null } {
  if (PREMATURE.has(termination)) return { reward: 0, partial: null };
  if (verdicts === null) return { reward: 1, partial: null };
  if (verdicts.length === 0) return { reward: 1, partial: 1 };
  return { reward: verdicts.every(Boolean) ? 1 : 0, partial: verdicts.filter(Boolean).length / verdicts.length };
}

export type { PyValue };
