/** Ending an episode, and the limits checked before the next generation (context budget, micro-steps, steps). */
import { Termination } from "../../../contracts/termination";
import type { RolloutState } from "./state";

const defaultCountTokens = (text: string) => Math.ceil(text.length / 4);

export function terminate(state: RolloutState, reason: string): RolloutState {
  return { ...state, status: "terminated", terminationReason: state.terminationReason ?? reason, pendingCalls: [] };
}

/**
 * One upstream orchestrator step was taken (TaskInstance.maxEpisodeSteps). Upstream checks the limit after every
 * step, so reaching it also replaces the ending the step itself gave (a stop token).
 */
export function stepTaken(state: RolloutState): RolloutState {
  if (state.maxEpisodeSteps === undefined) return state;
  const next = { ...state, episodeSteps: state.episodeSteps + 1 };
  if (next.episodeSteps < state.maxEpisodeSteps) return next;
  return { ...next, status: "terminated", terminationReason: Termination.maxSteps, pendingCalls: [] };
}

/** Micro-step cap check before a new generation. */
export function atMicroStepCap(state: RolloutState): boolean {
  return state.microSteps >= state.options.maxMicroSteps;
}

/** Enter AWAIT_CALLER, terminating on the context budget or micro-step cap. */
export function toAwaitCaller(state: RolloutState): RolloutState {
  const m = state.lastActMeasured;
  if (m && m.promptTokens > 0) {
    const count = state.options.countTokens ?? defaultCountTokens;
    let added = 0;
    // The messages since the last measured act prompt, read in place (no copy of the tail).
    const messages = state.messages;
    for (let i = m.messageCount; i < messages.length; i++) {
      const msg = messages[i]!;
      added += count(msg.content);
      for (const c of msg.tool_calls ?? []) added += count(c.function.name) + count(c.function.arguments);
    }
    if (m.promptTokens + m.responseTokens + added >= state.options.promptBudgetTokens) {
      return terminate({ ...state, lastErrorCode: "LENGTH_EXCEEDED" }, Termination.lengthExceeded);
    }
  }
  if (state.maxActsPerUserTurn !== undefined && state.turnActs > state.maxActsPerUserTurn) return terminate(state, Termination.maxActsPerUserTurn);
  if (atMicroStepCap(state)) return terminate(state, Termination.maxMicroSteps);
  return { ...state, status: "await_caller" };
}
