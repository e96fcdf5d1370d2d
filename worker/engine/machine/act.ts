/** The policy's act output: parsed into calls or a reply, then on to the tools, the judge, the user or the end. */
import { Termination } from "../../../contracts/termination";
import type { GenerateResult } from "../io";
import { actErrorMessage, assistantMessageFor } from "../messages";
import { parseActOutput, stripThink } from "../parsers";
import { atMicroStepCap, stepTaken, terminate } from "./limits";
import { generationFields, record } from "./record";
import type { PendingCall } from "./records";
import type { RolloutState } from "./state";
import { endTurn } from "./turns";

/** The user-visible part of a reply: without its think blocks (an unclosed one at the start hides the rest). */
export function visibleReply(text: string): string {
  const stripped = stripThink(text);
  return stripped.trimStart().startsWith("<think>") ? "" : stripped;
}

export function onAct(state: RolloutState, output: GenerateResult): RolloutState {
  const microStep = state.microSteps;
  const parsed = parseActOutput(output.text);
  const assistant = assistantMessageFor(parsed, state.rolloutId, state.assistantTurns);
  const measured = {
    promptTokens: output.promptTokens.length,
    responseTokens: output.tokens.length,
    messageCount: state.messages.length + 1,
  };
  const base: RolloutState = {
    ...state,
    microSteps: state.microSteps + 1,
    assistantTurns: state.assistantTurns + 1,
    turnActs: state.turnActs + 1,
    lastActText: output.text,
    lastActMeasured: measured,
  };
  const gen = generationFields(output);
  if (state.answerOnly) {
    // The reply is the answer: recorded as parsed (a parse error is kept for the view), never executed.
    const outcome =
      parsed.kind === "error"
        ? { error: { code: parsed.code, payload: parsed.payload } }
        : { calls: (assistant.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, argumentsJson: c.function.arguments })) };
    const records = record(state, { role: "act", microStep, ...gen, ...outcome });
    return terminate({ ...base, messages: [...state.messages, assistant], records }, Termination.answered);
  }
  if (parsed.kind === "error") {
    const messages = [...state.messages, assistant, actErrorMessage(parsed.payload)];
    const records = record(state, { role: "act", microStep, ...gen, error: { code: parsed.code, payload: parsed.payload } });
    return terminate(
      { ...base, messages, records, lastToolFailed: true, lastErrorCode: parsed.code },
      Termination.actParseError(parsed.code),
    );
  }
  const calls: PendingCall[] = (assistant.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, argumentsJson: c.function.arguments }));
  const records = record(state, { role: "act", microStep, ...gen, calls });
  const messages = [...state.messages, assistant];
  // A reply with nothing the user can see (blank, or thinking only) would reach the live user as an empty message: end the episode instead.
  if (calls.length === 0 && state.liveUser && visibleReply(output.text).trim() === "") {
    return terminate({ ...base, messages, records }, output.finishReason === "length" ? Termination.lengthExceeded : Termination.emptyAgentReply);
  }
  // The agent ends the conversation itself; calls beside the token are not run (upstream stops before the environment).
  if (state.agentStopTokens && state.agentStopTokens.some((t) => visibleReply(assistant.content).includes(t))) {
    return stepTaken(terminate({ ...base, messages, records }, Termination.agentStop));
  }
  if (calls.length === 0) {
    const replied = stepTaken({ ...base, messages, records });
    if (replied.status === "terminated") return replied;
    // A live user with no checklist items left for this turn: nothing to judge, the user answers next.
    if (state.liveUser && state.userTurnIndex >= state.numChecklistTurns) return endTurn(replied, false);
    // Scripted turns are scored at the end of the episode: a reply without calls ends the turn.
    if (state.scripted) return endTurn(replied, false);
    return { ...replied, status: "interacting" };
  }
  // A bound on executed calls per turn (FinMCP's max_tool_num): a reply after the turn ran more than it keeps its calls unrun and ends the episode.
  if (state.maxExecutedCallsPerUserTurn !== undefined && state.turnCalls > state.maxExecutedCallsPerUserTurn) {
    return stepTaken(terminate({ ...base, messages, records }, Termination.maxToolCalls));
  }
  const built: RolloutState = {
    ...base,
    turnCalls: state.turnCalls + calls.length,
    messages,
    records,
    pendingCalls: calls,
    cursor: 0,
    responses: [],
    realResponses: [],
    pendingAssistantIndex: messages.length - 1,
  };
  // The agent's message is a step; reaching the limit with it leaves its calls unrun.
  const withCalls = stepTaken(built);
  if (withCalls.status === "terminated") return withCalls;
  if (state.options.paradigm === "rehearse") {
    if (atMicroStepCap(withCalls)) return terminate(withCalls, Termination.maxMicroSteps);
    return { ...withCalls, status: "await_simulator" };
  }
  return { ...withCalls, status: "processing_tools" };
}

