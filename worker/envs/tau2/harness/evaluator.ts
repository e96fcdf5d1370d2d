/**
 * tau2-bench v0.2.0's evaluation of one simulation (`evaluator/evaluator.py`, evaluation type ALL), shared
 * by every domain:
 * - premature endings score 0; a task without evaluation criteria scores 1;
 * - ENV (EnvironmentEvaluator): the predicted environment replays every tool call of the trajectory, agent's
 *   and user's, in order through get_response on a fresh environment with the task's initial state (a call
 *   whose recorded result differs aborts the evaluation); the gold environment runs the gold actions through
 *   make_tool_call; DB = both hashes (agent and user) equal; the env assertions run on the predicted one;
 * - ACTION: every gold action matches some predicted call (agent or user) on the compared arguments;
 * - COMMUNICATE: every info string appears in some assistant text (lowercased, commas removed);
 * - the reward multiplies the parts its reward_basis names (absent: [DB, COMMUNICATE]).
 */
import { PyDict, pyEq, pyFromJsonText, type PyValue } from "../../../../lib/python/values";
import { pyArgumentsOf, rewardBasisOf, type Tau2Task } from "../../../../lib/tau2/tasks";
import { errorMessage, type Requestor, type Tau2Environment } from "./environment";
import { replayGold, envAssertionsOf, initialStateOf } from "./replay";
import type { Tau2Source } from "./source";
import { episodeResponse } from "./world";

export interface ScoredToolCall {
  name: string;
  /** The arguments as the model wrote them (JSON text), or already parsed (plain JSON values). */
  arguments: unknown;
  argumentsJson?: string;
  /** Who called it: the agent, or the user on its own device (default agent). */
  requestor?: Requestor;
  /** The tool text the episode recorded for this call (absent when it was rehearsed, not executed). */
  recordedContent?: string;
}

export interface ScoringInput {
  /** Every tool call of the episode, agent's and user's, in trajectory order (failing ones included). */
  toolCalls: ScoredToolCall[];
  /** Text of every assistant message (the greeting and text attached to tool-call messages included). */
  assistantTexts: string[];
  /** True when the episode ended on a step limit (or any other premature / invalid end). */
  premature: boolean;
}

export interface RewardBreakdown {
  reward: number;
  /** False when scoring stopped early (premature termination or a replay mismatch). */
  evaluated: boolean;
  note?: string;
  basis: string[];
  db?: { match: boolean; reward: number; predictedHash: string; goldHash: string; goldErrors: number; predictedUserHash?: string | null; goldUserHash?: string | null };
  envAssertions?: { reward: number; checks: { envType: string; funcName: string; expected: boolean; met: boolean }[] };
  communicate?: { reward: number; checks: { info: string; met: boolean }[] };
  action?: { reward: number; checks: { actionId: string; name: string; matched: boolean }[] };
}

/** COMMUNICATE: each info string is a substring of some assistant text, lowercased, commas removed. */
export function communicateChecks(infos: string[], assistantTexts: string[]): { info: string; met: boolean }[] {
  const texts = assistantTexts.filter((t) => t.trim() !== "").map((t) => t.toLowerCase().replaceAll(",", ""));
  return infos.map((info) => ({ info, met: texts.some((t) => t.includes(info.toLowerCase())) }));
}

/** A call's arguments as Python values (a dict when they parse to one). */
function pyArgs(call: ScoredToolCall): PyValue | undefined {
  if (call.argumentsJson !== undefined) {
    try {
      return pyFromJsonText(call.argumentsJson);
    } catch {
      return undefined;
    }
  }
  const a = call.arguments;
  if (a && typeof a === "object" && !Array.isArray(a)) return pyArgumentsOf({ arguments: a as Record<string, unknown> });
  return undefined;
}

/**
 * ACTION: a gold action matches a predicted call with the same name whose arguments equal the gold ones
 * on the compared keys (compare_args, else the predicted call's own keys; none at all: a match).
 */
export function actionChecks(task: Tau2Task, toolCalls: ScoredToolCall[]) {
  const predicted = toolCalls.map((c) => ({ name: c.name, args: pyArgs(c) }));
  return (task.evaluation_criteria?.actions ?? []).map((gold) => {
    const goldArgs = pyArgumentsOf(gold);
    const matched = predicted.some(({ name, args }) => {
      if (name !== gold.name || !(args instanceof PyDict)) return false;
      const keys = gold.compare_args ?? args.keys().filter((k): k is string => typeof k === "string");
      if (keys.length === 0) return true;
      const pick = (d: PyDict) => PyDict.of(d.entries().filter(([k]) => typeof k === "string" && keys.includes(k)));
      return pyEq(pick(args), pick(goldArgs));
    });
    return { actionId: gold.action_id, name: gold.name, matched };
  });
}

/** Score one episode (see the header). */
export function evaluateEpisode(source: Tau2Source, task: Tau2Task, input: ScoringInput, seed = task.id): RewardBreakdown {
  const criteria = task.evaluation_criteria;
  const basis = rewardBasisOf(task);
  if (input.premature) return { reward: 0, evaluated: false, note: "premature termination", basis };
  if (!criteria) return { reward: 1, evaluated: true, note: "task has no evaluation criteria", basis };
  const withUser = source.userTools !== null;

  let envReward = 1;
  let db: RewardBreakdown["db"];
  let envAssertions: RewardBreakdown["envAssertions"];
  if (criteria.actions != null || criteria.env_assertions != null) {
    // The predicted environment: set_state with the trajectory as its message history.
    const init = initialStateOf(task);
    const predicted: Tau2Environment = source.newEnv(seed);
    try {
      predicted.setState(init.data, init.actions, init.history);
    } catch (e) {
      return { reward: 0, evaluated: false, note: `the task's initial state could not be set: ${errorMessage(e)}`, basis };
    }
    for (const [i, call] of input.toolCalls.entries()) {
      const result = episodeResponse(predicted, call.name, call.requestor ?? "assistant", call);
      if (call.recordedContent !== undefined && !sameToolOutput(result.content, call.recordedContent)) {
        return { reward: 0, evaluated: false, note: `replay of tool call #${i} (${call.name}) differs from the recorded result`, basis };
      }
    }
    predicted.domain.sync();
    const gold = replayGold(source, task, seed);
    const predictedHash = predicted.dbHash();
    const predictedUserHash = predicted.userDbHash();
    const match = predictedHash === gold.db_hash && predictedUserHash === gold.user_db_hash;
    const dbReward = match ? 1 : 0;
    db = { match, reward: dbReward, predictedHash, goldHash: gold.db_hash, goldErrors: gold.errors, ...(withUser ? { predictedUserHash, goldUserHash: gold.user_db_hash } : {}) };
    if (criteria.env_assertions != null) {
      const checks: NonNullable<RewardBreakdown["envAssertions"]>["checks"] = [];
      for (const a of envAssertionsOf(task)) {
        let met: boolean;
        try {
          met = predicted.runEnvAssertion(a);
        } catch (e) {
          return { reward: 0, evaluated: false, note: `env assertion ${a.func_name} raised: ${errorMessage(e)}`, basis };
        }
        checks.push({ envType: a.env_type, funcName: a.func_name, expected: a.assert_value, met });
      }
      envAssertions = { reward: checks.every((c) => c.met) ? 1 : 0, checks };
    }
    envReward = 1;
    if (basis.includes("DB")) envReward *= dbReward;
    if (basis.includes("ENV_ASSERTION")) envReward *= envAssertions?.reward ?? 1;
  }

  const comm = communicateChecks(criteria.communicate_info ?? [], input.assistantTexts);
  const communicate = { reward: comm.every((c) => c.met) ? 1 : 0, checks: comm };
  const act = actionChecks(task, input.toolCalls);
  const action = { reward: act.every((c) => c.matched) ? 1 : 0, checks: act };

  let reward = 1;
  if (basis.includes("DB") || basis.includes("ENV_ASSERTION")) reward *= envReward;
  if (basis.includes("ACTION")) reward *= action.reward;
  if (basis.includes("COMMUNICATE")) reward *= communicate.reward;
  return { reward, evaluated: true, basis, db, ...(envAssertions ? { envAssertions } : {}), communicate, action };
}

/** Compare tool texts as set_state does: the parsed JSON if both parse, else the raw strings. */
export function sameToolOutput(a: string, b: string): boolean {
  const parse = (s: string): { ok: true; value: PyValue } | { ok: false } => {
    try {
      return { ok: true, value: pyFromJsonText(s) };
    } catch {
      return { ok: false };
    }
  };
  const x = parse(a);
  const y = parse(b);
  if (x.ok && y.ok) return pyEq(x.value, y.value);
  return a === b;
}
