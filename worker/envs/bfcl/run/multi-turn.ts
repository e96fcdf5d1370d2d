/**
 * A BFCL multi-turn task as the engine's TaskInstance, usable by training (all three paradigms) and
 * evaluation runs:
 * - the scripted user turns are the task's own messages (`followUpUserMessages`; a miss_func holdout turn
 *   says upstream's "I have updated some more functions…"), played one after another: a reply without
 *   calls ends a turn, as upstream's `inference_multi_turn_FC`;
 * - the tools of each turn are the involved classes' function documents as OpenAI tools, a held-out
 *   function added at its turn (`toolsByUserTurn`);
 * - more than 20 act steps in one turn end the task (upstream's MAXIMUM_STEP_LIMIT force quit);
 * - the real back ends answer calls in the `environment` paradigm and in shadow execution, one set of
 *   instances per episode, persisting across its turns;
 * - the reward is upstream's multi-turn checker on the calls the policy made (rerun on fresh instances
 *   beside the ground truth): 1 when every turn's state and responses match, else 0, with the failing check
 *   (turn, state difference or missing responses) kept in the score's detail.
 */
import type { BfclOutcome } from "../../../../lib/bfcl/outcome";
import type { ToolSchema } from "../../../engine/io";
import type { ItemVerdict } from "../../../engine/reward";
import type { EpisodeScore, EpisodeScoreContext, TaskInstance, ToolEnvironment } from "../../../engine/types";
import { checkMultiTurn, type MultiTurnFailure } from "../scoring/checker";
import { BfclDataError, type BfclTask } from "../data";
import { BfclDecodeError, callFromToolCall } from "../decode";
import { createBfclEnvironment } from "../world";
import { errorText } from "../execute";
import { MAXIMUM_STEP_LIMIT, toOpenAiTools, toolsPerTurn, userMessagesForTurn } from "../tools";
import { notScoredReason, outcomeVerdicts, shorten } from "../scoring/outcome";

export const BFCL_DATA_SOURCE_PREFIX = "bfcl:";

/** The engine's call (name + JSON arguments) as upstream's execution string; arguments that are not a JSON object give a tool error. */
export function callString(name: string, argumentsJson: string): { call: string } | { error: string } {
  try {
    return { call: callFromToolCall(name, argumentsJson) };
  } catch (err) {
    if (err instanceof BfclDecodeError) return { error: err.message };
    throw err;
  }
}

/** The task's back ends as the engine's executable world (one per episode). */
export function bfclToolEnvironment(task: BfclTask, dataDir?: string): ToolEnvironment {
  const env = createBfclEnvironment(task, { dataDir });
  return {
    execute(name, argumentsJson) {
      const c = callString(name, argumentsJson);
      return "call" in c ? env.executeOne(c.call) : errorText(c.error);
    },
    snapshot: () => ({}),
  };
}

/** The policy's decoded calls per turn per step, as upstream hands them to the checker (steps without calls dropped). */
export function modelTurnsOf(ctx: EpisodeScoreContext): string[][][] {
  const lastTurn = ctx.records.reduce((m, r) => Math.max(m, r.userTurn), 0);
  const turns: string[][][] = Array.from({ length: lastTurn + 1 }, () => []);
  for (const r of ctx.records) {
    if (r.role !== "act" || !r.calls?.length) continue;
    const calls = r.calls.flatMap((c) => {
      const s = callString(c.name, c.argumentsJson);
      return "call" in s ? [s.call] : [];
    });
    if (calls.length) turns[r.userTurn].push(calls);
  }
  return turns;
}

function checkOf(failure: MultiTurnFailure): NonNullable<BfclOutcome["check"]> {
  return {
    errorType: failure.errorType,
    message: failure.message,
    ...(failure.turn !== undefined ? { turn: failure.turn } : {}),
    ...(failure.className ? { className: failure.className } : {}),
    ...(failure.differences ? { differences: failure.differences.map((d) => ({ attribute: d.attribute, model: shorten(d.model), groundTruth: shorten(d.groundTruth) })) } : {}),
    ...(failure.missing ? { missing: failure.missing.map((m) => shorten(m)) } : {}),
  };
}

/** Upstream's checker on the episode: reward 1 or 0, the failing check named. */
export function scoreMultiTurn(task: BfclTask, ctx: EpisodeScoreContext, dataDir?: string): EpisodeScore {
  const base = { category: task.category, taskId: task.id, termination: ctx.terminationReason };
  const modelTurns = modelTurnsOf(ctx);
  const turns = { played: modelTurns.length, expected: task.question.length };
  const unscored = notScoredReason(ctx);
  if (unscored) {
    const outcome: BfclOutcome = { ...base, scored: false, notScoredReason: unscored, valid: false, turns };
    return { reward: 0, error: unscored, verdicts: outcomeVerdicts(outcome, ctx, turns.expected), detail: { bfcl: outcome } };
  }
  const result = checkMultiTurn(task, modelTurns, { dataDir });
  const outcome: BfclOutcome = { ...base, scored: true, valid: result.valid, turns, ...(result.failure ? { check: checkOf(result.failure) } : {}) };
  return { reward: result.valid ? 1 : 0, success: result.valid, verdicts: outcomeVerdicts(outcome, ctx, turns.expected), detail: { bfcl: outcome } };
}

/** The tools of every turn, as OpenAI function tools. */
export function bfclToolsByTurn(task: BfclTask, dataDir?: string): ToolSchema[][] {
  return toolsPerTurn(task, dataDir).map((t) => toOpenAiTools(t.functions) as ToolSchema[]);
}

/** The one scripted user message of a turn (upstream's turns hold exactly one; a holdout turn gets the fixed message). */
export function userMessageOf(task: BfclTask, turn: number): string {
  const messages = userMessagesForTurn(task, turn);
  if (messages.length !== 1 || messages[0].role !== "user") {
    throw new BfclDataError(`task ${task.id}: turn ${turn} has ${messages.length} messages (${messages.map((m) => m.role).join(", ")}); a multi-turn turn has exactly one user message`);
  }
  return messages[0].content;
}

export function multiTurnInstance(task: BfclTask, dataDir?: string): TaskInstance {
  const toolsByUserTurn = bfclToolsByTurn(task, dataDir);
  return {
    id: task.id,
    dataSource: `${BFCL_DATA_SOURCE_PREFIX}${task.category}`,
    messages: [{ role: "user", content: userMessageOf(task, 0) }],
    tools: toolsByUserTurn[0],
    toolsByUserTurn,
    followUpUserMessages: task.question.slice(1).map((_, i) => userMessageOf(task, i + 1)),
    checklists: [],
    maxActsPerUserTurn: MAXIMUM_STEP_LIMIT,
    environment: { create: () => bfclToolEnvironment(task, dataDir) },
    scoreEpisode: (ctx) => scoreMultiTurn(task, ctx, dataDir),
  };
}

export type { ItemVerdict };
