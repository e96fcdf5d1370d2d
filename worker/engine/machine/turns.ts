/** User turns: the judge's verdict ends a turn, the next scripted or live user message opens one; the environment or user failing ends the episode. */
import { Termination } from "../../../contracts/termination";
import { sanitizeText } from "../parsers";
import type { LiveUserAction } from "../types";
import { stepTaken, terminate, toAwaitCaller } from "./limits";
import { noTokens, record } from "./record";
import type { RolloutEvent, RolloutState } from "./state";

export function onJudged(state: RolloutState, stop: boolean, reason?: string): RolloutState {
  // With a live user the conversation, not the checklist's length, decides when the episode ends.
  if (state.liveUser && reason === Termination.checklistComplete) return endTurn(state, false);
  return endTurn(state, stop, reason);
}

/** A finished user turn: stop, hit a cap, or move on to the next user message. */
export function endTurn(state: RolloutState, stop: boolean, reason?: string): RolloutState {
  const userTurns = state.userTurns + 1;
  const next: RolloutState = { ...state, userTurns };
  if (stop) return terminate(next, reason ?? Termination.judgeRequiredFailed);
  if (state.liveUser) {
    if (state.assistantTurns >= state.options.maxAssistantTurns) return terminate(next, Termination.maxAssistantTurns);
    if (userTurns >= state.options.maxUserTurns) return terminate(next, Termination.maxUserTurns);
    return { ...next, status: "await_user" };
  }
  if (state.scripted) {
    if (state.userTurnIndex >= state.followUpUserMessages.length) return terminate(next, Termination.scriptComplete);
  } else if (state.userTurnIndex + 1 >= state.numChecklistTurns) return terminate(next, Termination.checklistComplete);
  if (state.assistantTurns >= state.options.maxAssistantTurns) return terminate(next, Termination.maxAssistantTurns);
  if (userTurns >= state.options.maxUserTurns) return terminate(next, Termination.maxUserTurns);
  const followUp = state.followUpUserMessages[state.userTurnIndex];
  if (followUp === undefined) return terminate(next, Termination.noMoreUserTurns);
  const messages = [...state.messages, { role: "user" as const, content: followUp }];
  const withUser: RolloutState = {
    ...next,
    messages,
    tools: state.toolsByUserTurn?.[state.userTurnIndex + 1] ?? state.tools,
    userTurnIndex: state.userTurnIndex + 1,
    turnStartIndex: messages.length - 1,
    turnActs: 0,
    turnCalls: 0,
  };
  const records = record(withUser, { role: "user", microStep: state.microSteps, text: followUp, ...noTokens, valid: true });
  return toAwaitCaller({ ...withUser, records });
}

/** The live user's message opens the next user turn (or the first one); a `stop` reason ends the episode after it. */
export function onUser(state: RolloutState, rawText: unknown, stop?: string, actions: LiveUserAction[] = []): RolloutState {
  const text = typeof rawText === "string" ? rawText : "";
  const maxChars = state.options.maxUserChars ?? 8000;
  if (text.trim() === "") return userFailed(state, Termination.userStalled, "USER_STALLED", "the user simulator returned an empty message", text);
  if (text.length > maxChars) {
    return userFailed(state, Termination.userGarbage, "USER_GARBAGE", `the user simulator returned ${text.length} characters (limit ${maxChars})`, `${text.slice(0, maxChars)}…`);
  }
  const earlier = state.messages.filter((m) => m.role === "user").slice(-2);
  if (!stop && !state.allowRepeatedUserMessages && earlier.length === 2 && earlier.every((m) => m.content.trim() === text.trim())) {
    return userFailed(state, Termination.userStalled, "USER_STALLED", "the user simulator repeated the same message three times", text);
  }
  const first = !state.messages.some((m) => m.role === "user");
  const messages = [...state.messages, { role: "user" as const, content: sanitizeText(text) }];
  const withUser: RolloutState = {
    ...state,
    messages,
    userTurnIndex: first ? state.userTurnIndex : state.userTurnIndex + 1,
    turnStartIndex: messages.length - 1,
    turnActs: 0,
    turnCalls: 0,
  };
  let withActions = withUser;
  for (const a of actions) {
    // What the user did on its own device comes first, then its message.
    withActions = { ...withActions, records: record(withActions, { role: "user_tool", microStep: state.microSteps, text: a.content, call: a.call, real: a.content, ...noTokens, valid: true }) };
  }
  const records = record(withActions, { role: "user", microStep: state.microSteps, text, ...noTokens, valid: true });
  if (stop) return stepTaken(terminate({ ...withUser, records }, stop));
  return stepTaken(toAwaitCaller({ ...withUser, records }));
}

/** The environment broke: record what it said (on the call it was answering, if any) and end the episode. */
export function environmentFailed(state: RolloutState, event: Extract<RolloutEvent, { kind: "environment_failed" }>): RolloutState {
  const records = record(state, {
    role: "environment",
    microStep: state.microSteps,
    // What the environment said about its failure is the turn's text (the trajectory shows it; no tool message enters the conversation).
    text: event.detail,
    ...(event.call ? { call: event.call } : {}),
    error: { code: event.code, payload: event.detail },
    ...noTokens,
    valid: false,
  });
  return terminate({ ...state, records, lastErrorCode: event.code }, Termination.environmentError(event.code));
}

/** The live user failed: record what came back (never entering the conversation) and end with `reason`. */
export function userFailed(state: RolloutState, reason: string, code: string, detail: string, text: string): RolloutState {
  const records = record(state, { role: "user", microStep: state.microSteps, text, error: { code, payload: detail }, ...noTokens, valid: false });
  return terminate({ ...state, records, lastErrorCode: code }, reason);
}

