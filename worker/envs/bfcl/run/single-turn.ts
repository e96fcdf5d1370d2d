/**
 * A BFCL single-turn entry (AST, irrelevance and relevance categories) as the engine's TaskInstance, for
 * evaluation runs: the entry's messages, its function documents as upstream shows them (language notes,
 * Java/JavaScript parameters as strings) turned into OpenAI tools, one reply (`answerOnly`: the calls are
 * checked, never executed), scored by upstream's checker on the reply's `<tool_call>` blocks — the format
 * every policy of the product writes (worker/clients/chat-policy.ts).
 *
 * Function names with "." become "_" in the tools (OpenAI-compatible servers accept only
 * `[A-Za-z0-9_-]` names) and the checker compares with upstream's `underscore_to_dot`, as upstream does for
 * its OpenAI-style function-calling handlers.
 */
import type { BfclOutcome } from "../../../../lib/bfcl/outcome";
import type { ChatMessage, ToolSchema } from "../../../engine/io";
import type { EpisodeScore, EpisodeScoreContext, TaskInstance } from "../../../engine/types";
import { BfclDataError, type FunctionDoc } from "../data";
import { decodeToolCallBlocks } from "../single-turn/decode";
import type { SingleTurnEntry } from "../single-turn/data";
import { evaluateSingleTurnEntry } from "../single-turn/evaluate";
import { promptFunctions } from "../single-turn/prompt";
import type { CheckError } from "../single-turn/ast-checker";
import { toOpenAiTools } from "../tools";
import { BFCL_DATA_SOURCE_PREFIX } from "./multi-turn";
import { notScoredReason, outcomeVerdicts, shorten } from "../scoring/outcome";

const CHAT_ROLES = new Set(["system", "user", "assistant"]);

/** The tools the model is shown for an entry ("." in names replaced by "_"). */
export function singleTurnTools(entry: SingleTurnEntry): ToolSchema[] {
  const docs = promptFunctions(entry).map((f) => ({ ...f, name: f.name.replace(/\./g, "_"), description: f.description ?? "" }) as FunctionDoc);
  return toOpenAiTools(docs) as ToolSchema[];
}

function messagesOf(entry: SingleTurnEntry): ChatMessage[] {
  if (entry.question.length !== 1) throw new BfclDataError(`entry ${entry.id}: a single-turn entry has one turn, not ${entry.question.length}`);
  return entry.question[0].map((m) => {
    if (!CHAT_ROLES.has(m.role)) throw new BfclDataError(`entry ${entry.id}: message role "${m.role}" (expected system, user or assistant)`);
    return { role: m.role as ChatMessage["role"], content: m.content };
  });
}

const errorText = (e: CheckError): string => (typeof e === "string" ? e : `call ${e.modelResultIndex + 1}: ${e.subErrorType ?? "mismatch"}: ${e.subError.map(errorText).join("; ")}`);

export function scoreSingleTurn(entry: SingleTurnEntry, ctx: EpisodeScoreContext): EpisodeScore {
  const base = { category: entry.category, taskId: entry.id, termination: ctx.terminationReason };
  const unscored = notScoredReason(ctx);
  if (unscored) {
    const outcome: BfclOutcome = { ...base, scored: false, notScoredReason: unscored, valid: false };
    return { reward: 0, error: unscored, verdicts: outcomeVerdicts(outcome, ctx), detail: { bfcl: outcome } };
  }
  const reply = ctx.records.find((r) => r.role === "act")?.text ?? "";
  const verdict = evaluateSingleTurnEntry(entry, decodeToolCallBlocks(reply), { underscoreToDot: true });
  const details = (verdict.error ?? []).map((e) => shorten(errorText(e), 1000));
  const outcome: BfclOutcome = {
    ...base,
    scored: true,
    valid: verdict.valid,
    ...(verdict.valid ? {} : { check: { errorType: verdict.errorType ?? "failed", message: details[0] ?? verdict.errorType ?? "failed", details } }),
  };
  return { reward: verdict.valid ? 1 : 0, success: verdict.valid, verdicts: outcomeVerdicts(outcome, ctx), detail: { bfcl: outcome } };
}

export function singleTurnInstance(entry: SingleTurnEntry): TaskInstance {
  return {
    id: entry.id,
    dataSource: `${BFCL_DATA_SOURCE_PREFIX}${entry.category}`,
    messages: messagesOf(entry),
    tools: singleTurnTools(entry),
    followUpUserMessages: [],
    checklists: [],
    answerOnly: true,
    scoreEpisode: (ctx) => scoreSingleTurn(entry, ctx),
  };
}
