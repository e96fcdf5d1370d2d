/**
 * v0.2.0 scoring (spec §10) and pass^k (spec §11).
 *
 * reward = db_reward × communicate_reward for every v0.2.0 retail task (default basis [DB, COMMUNICATE]);
 * 0 on premature termination. The ACTION check is computed and reported but not multiplied in unless a
 * task's reward_basis names it.
 */
import { RetailEnv } from "./env";
import type { RetailDb } from "./model";
import { replayGoldActions } from "./replay";
import type { Tau2Task } from "./tasks";

export interface ScoredToolCall {
  name: string;
  arguments: unknown;
  /** The tool text the episode recorded for this call (absent when it was rehearsed, not executed). */
  recordedContent?: string;
}

export interface ScoringInput {
  /** Every tool call of the episode, in order (including failing ones). */
  toolCalls: ScoredToolCall[];
  /** Text of every assistant message (the greeting and text attached to tool-call messages included). */
  assistantTexts: string[];
  /** True when the episode ended on max_steps (or any other premature / invalid end). */
  premature: boolean;
}

export interface RewardBreakdown {
  reward: number;
  /** False when scoring stopped early (premature termination or a replay mismatch). */
  evaluated: boolean;
  note?: string;
  basis: string[];
  db?: { match: boolean; reward: number; predictedHash: string; goldHash: string; goldErrors: number };
  communicate?: { reward: number; checks: { info: string; met: boolean }[] };
  action?: { reward: number; checks: { actionId: string; name: string; matched: boolean }[] };
}

/** Compare tool texts as the original does: parsed JSON if both parse, else the raw strings. */
export function sameToolOutput(a: string, b: string): boolean {
  const parse = (s: string) => {
    try {
      return { ok: true as const, value: JSON.parse(s) as unknown };
    } catch {
      return { ok: false as const };
    }
  };
  const x = parse(a);
  const y = parse(b);
  if (x.ok && y.ok) return deepEqual(x.value, y.value);
  return a === b;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}

/** COMMUNICATE (spec §10.2): each info string is a substring of some assistant text, lowercased, commas removed. */
export function communicateChecks(infos: string[], assistantTexts: string[]): { info: string; met: boolean }[] {
  const texts = assistantTexts.filter((t) => t.trim() !== "").map((t) => t.toLowerCase().replaceAll(",", ""));
  return infos.map((info) => ({ info, met: texts.some((t) => t.includes(info.toLowerCase())) }));
}

/** ACTION (spec §10.3): a predicted call matches when its whole argument object equals gold restricted to its keys. */
export function actionChecks(task: Tau2Task, toolCalls: ScoredToolCall[]) {
  return (task.evaluation_criteria?.actions ?? []).map((gold) => {
    const matched = toolCalls.some((call) => {
      if (call.name !== gold.name) return false;
      const args = call.arguments;
      if (!args || typeof args !== "object" || Array.isArray(args)) return false;
      const keys = gold.compare_args ?? Object.keys(args);
      if (!keys.every((k) => Object.hasOwn(gold.arguments, k))) return false;
      return keys.every((k) => deepEqual((args as Record<string, unknown>)[k], gold.arguments[k]));
    });
    return { actionId: gold.action_id, name: gold.name, matched };
  });
}

/**
 * Score one episode. The predicted DB is rebuilt by replaying the episode's tool calls on a fresh
 * environment; a call whose recorded text differs from the replay aborts the evaluation (reward 0).
 */
export function scoreTau2Episode(task: Tau2Task, pristine: RetailDb, input: ScoringInput): RewardBreakdown {
  const criteria = task.evaluation_criteria;
  const basis = criteria?.reward_basis ?? ["DB", "COMMUNICATE"];
  if (input.premature) return { reward: 0, evaluated: false, note: "premature termination", basis };
  if (!criteria) return { reward: 1, evaluated: true, note: "task has no evaluation criteria", basis };

  let dbReward = 1;
  let db: RewardBreakdown["db"];
  if (criteria.actions != null || criteria.env_assertions != null) {
    const predicted = new RetailEnv(pristine);
    for (const [i, call] of input.toolCalls.entries()) {
      const result = predicted.call(call.name, call.arguments);
      if (call.recordedContent !== undefined && !sameToolOutput(result.content, call.recordedContent)) {
        return { reward: 0, evaluated: false, note: `replay of tool call #${i} (${call.name}) differs from the recorded result`, basis };
      }
    }
    const gold = replayGoldActions(task, pristine);
    const predictedHash = predicted.hash();
    const match = predictedHash === gold.db_hash;
    dbReward = match ? 1 : 0;
    db = { match, reward: dbReward, predictedHash, goldHash: gold.db_hash, goldErrors: gold.errors };
  }

  const comm = communicateChecks(criteria.communicate_info ?? [], input.assistantTexts);
  const communicate = { reward: comm.every((c) => c.met) ? 1 : 0, checks: comm };
  const act = actionChecks(task, input.toolCalls);
  const action = { reward: act.every((c) => c.matched) ? 1 : 0, checks: act };

  let reward = 1;
  if (basis.includes("DB") || basis.includes("ENV_ASSERTION")) reward *= dbReward;
  if (basis.includes("ACTION")) reward *= action.reward;
  if (basis.includes("COMMUNICATE")) reward *= communicate.reward;
  return { reward, evaluated: true, basis, db, communicate, action };
}

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

/**
 * pass^k as tau2 computes it: per task C(c, k) / C(n, k) with c successes out of n trials, averaged
 * over tasks, for k = 1 … K where K is the smallest trial count of any task.
 */
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
