/** Tool answers — rehearsed, simulated or real — collected per call, then appended to the conversation as one batch. */
import { Termination } from "../../../contracts/termination";
import { compareResponses } from "../fidelity";
import type { GenerateResult } from "../io";
import { toolMessage } from "../messages";
import { isToolErrorContent, parseRehearseOutput, rehearseErrorCodes, safeParseJson } from "../parsers";
import { atMicroStepCap, stepTaken, terminate, toAwaitCaller } from "./limits";
import { generationFailure, generationFields, noTokens, record } from "./record";
import type { TurnRecord, TurnRole } from "./records";
import type { RolloutEvent, RolloutState } from "./state";

/** A tool message carrying one of these ends a rehearse-paradigm episode as a rehearse parse error. */
const REHEARSE_CODES: ReadonlySet<string> = new Set(rehearseErrorCodes);

/** Error code of a tool message content holding `error_tool_call` (nested object or plain string). */
function toolErrorCode(content: string): string {
  const parsed = safeParseJson(content);
  if (parsed.ok && typeof parsed.value === "object" && parsed.value !== null) {
    const e = (parsed.value as Record<string, unknown>).error_tool_call;
    if (typeof e === "object" && e !== null && typeof (e as Record<string, unknown>).code === "string") {
      return (e as Record<string, string>).code;
    }
  }
  return "ERROR";
}

/** Append all tool messages of the pending batch in call order; terminate on any error. */
function flushToolResponses(state: RolloutState): RolloutState {
  const messages = [...state.messages];
  let failedCode: string | undefined;
  state.pendingCalls.forEach((call, i) => {
    const content = state.responses[i];
    messages.push(toolMessage(call.name, content));
    if (failedCode === undefined && isToolErrorContent(content)) failedCode = toolErrorCode(content);
  });
  const next: RolloutState = { ...state, messages, pendingCalls: [], responses: [], realResponses: [], cursor: 0 };
  if (failedCode !== undefined) {
    const reason =
      state.options.paradigm === "rehearse" && REHEARSE_CODES.has(failedCode)
        ? Termination.rehearseParseError(failedCode)
        : Termination.toolError(failedCode);
    return stepTaken(terminate({ ...next, lastToolFailed: true, lastErrorCode: failedCode }, reason));
  }
  return stepTaken(toAwaitCaller(next));
}

export function onRehearse(
  state: RolloutState,
  event: Extract<RolloutEvent, { kind: "rehearse" | "rehearse_failed" }>,
): RolloutState {
  const call = state.pendingCalls[state.cursor];
  let content: string;
  let gen: ReturnType<typeof generationFields> | (typeof noTokens & { text: string; valid: boolean });
  let error: TurnRecord["error"];
  if (event.kind === "rehearse_failed") {
    // Reference behaviour: a backend failure becomes a flat non-JSON string and the episode goes on.
    content = `Error when executing tool: simulator_rollout_failed: ${event.error}`;
    gen = { ...noTokens, text: "", valid: false };
    error = generationFailure(event);
  } else {
    const parsed = parseRehearseOutput(event.output.text);
    content = parsed.content;
    gen = generationFields(event.output);
    if (!parsed.ok) error = { code: parsed.code, payload: parsed.payload };
  }
  const real = event.real;
  const records = record(state, {
    role: "rehearse",
    microStep: state.microSteps,
    ...gen,
    call,
    rehearsed: content,
    real,
    fidelity: real !== undefined ? compareResponses(content, real, { realError: event.realError }) : undefined,
    error,
  });
  const next: RolloutState = {
    ...state,
    records,
    microSteps: state.microSteps + (event.kind === "rehearse" ? 1 : 0),
    responses: [...state.responses, content],
    realResponses: [...state.realResponses, real],
    cursor: state.cursor + 1,
  };
  if (next.cursor < next.pendingCalls.length) {
    if (atMicroStepCap(next)) return terminate(next, Termination.maxMicroSteps);
    return next;
  }
  return flushToolResponses(next);
}

export function onTool(state: RolloutState, content: string, failed: boolean, probe?: GenerateResult, realError?: boolean): RolloutState {
  const call = state.pendingCalls[state.cursor];
  const role: TurnRole = state.options.paradigm === "simulator" ? "simulator" : "environment";
  // A fidelity probe's rehearsal is recorded beside the real response (it never enters the conversation).
  const probed = probe ? parseRehearseOutput(probe.text).content : undefined;
  const records = record(state, {
    role,
    microStep: state.microSteps,
    text: content,
    call,
    ...noTokens,
    real: role === "environment" ? content : undefined,
    rehearsed: role === "simulator" ? content : probed,
    fidelity: probed !== undefined && role === "environment" ? compareResponses(probed, content, { realError }) : undefined,
    valid: !failed,
    error: failed ? { code: "SIMULATOR_FAILED" } : undefined,
  });
  const next: RolloutState = { ...state, records, responses: [...state.responses, content], cursor: state.cursor + 1 };
  if (next.cursor < next.pendingCalls.length) return next;
  if (failed) {
    const messages = [...next.messages, ...next.pendingCalls.map((c, i) => toolMessage(c.name, next.responses[i]))];
    return terminate({ ...next, messages, pendingCalls: [], responses: [], lastToolFailed: true, lastErrorCode: "SIMULATOR_FAILED" }, Termination.simulatorFailed);
  }
  return flushToolResponses(next);
}

