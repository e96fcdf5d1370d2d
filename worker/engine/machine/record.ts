/** Appending a TurnRecord to the state, and the record fields of a generation. */
import type { GenerateResult } from "../io";
import type { TurnRecord } from "./records";
import type { RolloutState } from "./state";

export function record(state: RolloutState, r: Omit<TurnRecord, "index" | "userTurn">): TurnRecord[] {
  // slice + push: a new array as before (states stay immutable), without the spread's iterator.
  const out = state.records.slice();
  out.push({ ...r, index: state.records.length, userTurn: state.userTurnIndex });
  return out;
}

export const noTokens = { promptTokens: [], tokens: [], logprobs: [], promptTokenCount: 0, responseTokenCount: 0 };

export function generationFields(o: GenerateResult) {
  return {
    text: o.text,
    promptTokens: o.promptTokens,
    tokens: o.tokens,
    logprobs: o.logprobs,
    finishReason: o.finishReason,
    promptTokenCount: o.promptTokens.length,
    responseTokenCount: o.tokens.length,
    valid: o.text.trim().length > 0,
  };
}

export function generationFailure(event: { error: string; cause?: string }): NonNullable<TurnRecord["error"]> {
  return { code: "GENERATION_FAILED", payload: event.error, ...(event.cause ? { cause: event.cause } : {}) };
}
