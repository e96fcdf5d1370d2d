/**
 * The rollout state machine (envace-method.md §1.2, §1.8) as a pure, synchronous step function.
 *
 * `startRollout` builds the initial state; `nextNeed` says what the machine waits for (an act
 * generation, a rehearse generation, a real/simulated tool response, a turn judgement, or nothing);
 * `applyEvent` returns the next state. All I/O happens in the driver (rollout.ts), so this file can
 * be driven synchronously (transcripts, tests) or asynchronously (training).
 *
 * Differences from the reference are listed in DIFFERENCES.md (judging and environment/simulator
 * answers are external events here instead of blocking calls inside `step`).
 */
import type { Paradigm } from "../../contracts/run-config";
import type { ChatMessage, GenerateResult, ToolSchema } from "./io";
import { actErrorMessage, assistantMessageFor, toolMessage } from "./messages";
import { sanitizeText, stripThink } from "./parsers";
import { compareResponses, type Fidelity } from "./fidelity";
import { type ActErrorCode, type ActErrorPayload, isToolErrorContent, parseActOutput, parseRehearseOutput, safeParseJson } from "./parsers";
import {
  buildCompactRehearsePrompt,
  buildRehearsePrompt,
  type CompactRehearsePromptOptions,
  fewShotFromReference,
  type RehearsePromptOptions,
} from "./prompts";
import type { FewShotExample, LiveUserAction, RehearsePromptStyle, TaskInstance } from "./types";

export type RolloutStatus = "pending" | "await_caller" | "await_simulator" | "processing_tools" | "interacting" | "await_user" | "terminated";

/** Termination reasons (§1.8), stored as plain strings on trajectories. */
export const Termination = {
  emptyChecklist: "empty_checklist",
  actParseError: (code: string) => `act_parse_error:${code}`,
  rehearseParseError: (code: string) => `rehearse_parse_error:${code}`,
  toolError: (code: string) => `tool_error:${code}`,
  simulatorFailed: "simulator_failed",
  judgeRequiredFailed: "judge_required_failed",
  checklistComplete: "checklist_complete",
  judgeFailed: "judge_failed",
  interactionException: "interaction_exception",
  maxAssistantTurns: "max_assistant_turns",
  maxUserTurns: "max_user_turns",
  noMoreUserTurns: "no_more_user_turns",
  lengthExceeded: "LENGTH_EXCEEDED",
  maxMicroSteps: "max_micro_steps",
  generationFailed: "generation_failed",
  /** Live user (TaskInstance.liveUser): blank / repeated / timed-out reply, implausible reply, failed call. */
  userStalled: "user_stalled",
  userGarbage: "user_garbage",
  userError: "user_error",
  /** Live user: the agent's reply is blank (a prompt that fills the context gives an empty "length" generation). */
  emptyAgentReply: "empty_agent_reply",
  /** Scripted user turns (TaskInstance.scoreEpisode without checklist): every scripted turn was played. */
  scriptComplete: "script_complete",
  /** TaskInstance.maxActsPerUserTurn: more act steps than allowed within one user turn. */
  maxActsPerUserTurn: "max_acts_per_user_turn",
  /** TaskInstance.answerOnly: the policy's one reply was given. */
  answered: "answered",
  /** TaskInstance.agentStopTokens: the agent ended the conversation. */
  agentStop: "agent_stop",
  /** TaskInstance.maxEpisodeSteps: upstream's step limit was reached. */
  maxSteps: "max_steps",
  /** TaskInstance.maxExecutedCallsPerUserTurn: a reply came after the turn's bound of executed calls (its calls not run). */
  maxToolCalls: "max_tool_calls",
  /** The episode's environment itself failed (EnvironmentFailure: did not start, crashed, hung, broke its protocol). */
  environmentError: (code: string) => `environment_error:${code}`,
} as const;

/** Termination reasons of episodes whose environment failed; they are recorded but never trained on. */
export const isEnvironmentError = (reason: string | undefined): boolean => reason?.startsWith("environment_error:") === true;

export interface RolloutOptions {
  paradigm: Paradigm;
  /** In `rehearse`, also execute each call for real (requires an environment on the instance). */
  shadowExecution: boolean;
  maxAssistantTurns: number;
  maxUserTurns: number;
  maxMicroSteps: number;
  /** Act-context budget: terminate with LENGTH_EXCEEDED when the next act prompt would reach it. */
  promptBudgetTokens: number;
  /** Overrides the instance's rehearse prompt style. */
  rehearsePromptStyle?: RehearsePromptStyle;
  rehearsePromptOptions?: Partial<RehearsePromptOptions>;
  compactRehearsePromptOptions?: Partial<CompactRehearsePromptOptions>;
  /** In `environment`, also ask the rehearse role for each call (not shown to the policy) and record fidelity. */
  fidelityProbe?: boolean;
  /** Token estimate for text appended since the last measured act prompt (default ⌈chars/4⌉). */
  countTokens?: (text: string) => number;
  /** Live user: a longer message ends the episode as `user_garbage` (default 8000 characters). */
  maxUserChars?: number;
}

export interface PendingCall {
  id: string;
  name: string;
  argumentsJson: string;
}

/** `user_tool`: a live user's own tool call on its side of the world (LiveUserAction), never shown to the agent. */
export type TurnRole = "act" | "rehearse" | "environment" | "simulator" | "user" | "user_tool";

/** One recorded event of a rollout (a generation, a tool response, a replayed user message). */
export interface TurnRecord {
  index: number;
  role: TurnRole;
  /** 0-based user turn this record belongs to. */
  userTurn: number;
  /** Micro-step of a generation (act / rehearse), else the micro-step it followed. */
  microStep: number;
  text: string;
  /** Act: parsed calls. Tool roles: the call answered. */
  calls?: PendingCall[];
  call?: PendingCall;
  /**
   * Act parse error (reference codes) or rehearse/tool error code. A failed generation is
   * GENERATION_FAILED with the error text as payload and the thrown error's own code as `cause`
   * (e.g. TOKENS_OUT_OF_VOCABULARY), which the step's health check reads.
   */
  error?: { code: string; payload?: unknown; cause?: string };
  /** Tool response that entered the conversation, and the real one under shadow execution. */
  rehearsed?: string;
  real?: string;
  fidelity?: Fidelity;
  promptTokens: number[];
  tokens: number[];
  logprobs: number[];
  finishReason?: "stop" | "length";
  promptTokenCount: number;
  responseTokenCount: number;
  /** `is_action_valid`: non-empty output (generations only). */
  valid: boolean;
}

export interface RolloutState {
  rolloutId: string;
  instanceId: string;
  status: RolloutStatus;
  messages: ChatMessage[];
  tools: ToolSchema[];
  followUpUserMessages: string[];
  fewShot: FewShotExample[];
  numChecklistTurns: number;
  hasEnvironment: boolean;
  /** The instance has a live user: user messages come from `user` events, not from followUpUserMessages. */
  liveUser: boolean;
  /** Scored at the end without a checklist or live user: every scripted follow-up turn is played. */
  scripted: boolean;
  /** TaskInstance.toolsByUserTurn (tools per user turn), when the tools change between turns. */
  toolsByUserTurn?: ToolSchema[][];
  /** TaskInstance.maxActsPerUserTurn. */
  maxActsPerUserTurn?: number;
  /** Act steps in the current user turn. */
  turnActs: number;
  /** TaskInstance.maxExecutedCallsPerUserTurn. */
  maxExecutedCallsPerUserTurn?: number;
  /** Calls sent to be executed in the current user turn. */
  turnCalls: number;
  /** TaskInstance.answerOnly: the first reply ends the episode, its calls are never executed. */
  answerOnly: boolean;
  /** TaskInstance.agentStopTokens. */
  agentStopTokens?: readonly string[];
  /** TaskInstance.maxEpisodeSteps, and the steps taken so far (user messages, agent messages, tool batches). */
  maxEpisodeSteps?: number;
  episodeSteps: number;
  /** TaskInstance.allowRepeatedUserMessages. */
  allowRepeatedUserMessages: boolean;
  options: RolloutOptions;
  rehearsePromptStyle: RehearsePromptStyle;
  assistantTurns: number;
  /** Finished (judged) user turns. */
  userTurns: number;
  /** Index of the current user turn (0-based). */
  userTurnIndex: number;
  /** Index in `messages` of the current turn's user message. */
  turnStartIndex: number;
  microSteps: number;
  pendingCalls: PendingCall[];
  cursor: number;
  responses: string[];
  realResponses: (string | undefined)[];
  /** Index in `messages` of the assistant message whose calls are pending. */
  pendingAssistantIndex: number;
  lastActText: string;
  lastActMeasured?: { promptTokens: number; responseTokens: number; messageCount: number };
  lastToolFailed: boolean;
  lastErrorCode?: string;
  terminationReason?: string;
  records: TurnRecord[];
}

export type RolloutNeed =
  | { kind: "act"; messages: ChatMessage[]; tools: ToolSchema[] }
  | { kind: "rehearse"; call: PendingCall; messages: ChatMessage[]; shadow: boolean }
  | { kind: "tool"; source: "environment" | "simulator"; call: PendingCall; probe?: ChatMessage[] }
  | { kind: "judge"; userTurnIndex: number }
  | { kind: "user"; messages: ChatMessage[] }
  | { kind: "done" };

export type RolloutEvent =
  | { kind: "act"; output: GenerateResult }
  | { kind: "act_failed"; error: string; cause?: string }
  /** `realError`: the environment's own error flag for `real` (ToolOutcome.isError), when it gave one. */
  | { kind: "rehearse"; output: GenerateResult; real?: string; realError?: boolean }
  | { kind: "rehearse_failed"; error: string; cause?: string; real?: string; realError?: boolean }
  | { kind: "tool"; content: string; failed?: boolean; /** Fidelity probe: the rehearse role's raw output. */ probe?: GenerateResult; realError?: boolean }
  /** The environment itself failed (EnvironmentFailure), while answering `call` or before the episode started: the episode ends. */
  | { kind: "environment_failed"; code: string; detail: string; call?: PendingCall }
  | { kind: "judged"; stop: boolean; reason?: string }
  /** Live user's message; `stop` = termination reason when the message ends the episode; `actions` = its own tool calls before it. */
  | { kind: "user"; text: string; stop?: string; actions?: LiveUserAction[] }
  | { kind: "user_failed"; reason: string; detail: string };

const defaultCountTokens = (text: string) => Math.ceil(text.length / 4);

export function startRollout(instance: TaskInstance, options: RolloutOptions, rolloutId: string): RolloutState {
  const hasChecklist = instance.checklists.length > 0 && instance.checklists[0].length > 0;
  const firstUser = instance.messages.findIndex((m) => m.role === "user");
  const state: RolloutState = {
    rolloutId,
    instanceId: instance.id,
    status: "pending",
    messages: instance.messages.map((m) => ({ ...m })),
    tools: instance.toolsByUserTurn?.[0] ?? instance.tools,
    followUpUserMessages: instance.followUpUserMessages,
    fewShot: instance.fewShot ?? fewShotFromReference(instance.reference),
    numChecklistTurns: hasChecklist ? instance.checklists[0].length : 0,
    hasEnvironment: instance.environment !== undefined,
    liveUser: instance.liveUser !== undefined,
    scripted: !hasChecklist && instance.scoreEpisode !== undefined && instance.liveUser === undefined,
    ...(instance.toolsByUserTurn ? { toolsByUserTurn: instance.toolsByUserTurn } : {}),
    ...(instance.maxActsPerUserTurn !== undefined ? { maxActsPerUserTurn: instance.maxActsPerUserTurn } : {}),
    turnActs: 0,
    ...(instance.maxExecutedCallsPerUserTurn !== undefined ? { maxExecutedCallsPerUserTurn: instance.maxExecutedCallsPerUserTurn } : {}),
    turnCalls: 0,
    answerOnly: instance.answerOnly === true,
    ...(instance.agentStopTokens?.length ? { agentStopTokens: instance.agentStopTokens } : {}),
    ...(instance.maxEpisodeSteps !== undefined ? { maxEpisodeSteps: instance.maxEpisodeSteps } : {}),
    episodeSteps: 0,
    allowRepeatedUserMessages: instance.allowRepeatedUserMessages === true,
    options,
    rehearsePromptStyle: options.rehearsePromptStyle ?? instance.rehearsePromptStyle ?? "full",
    assistantTurns: 0,
    userTurns: 0,
    userTurnIndex: 0,
    turnStartIndex: firstUser < 0 ? 0 : firstUser,
    microSteps: 0,
    pendingCalls: [],
    cursor: 0,
    responses: [],
    realResponses: [],
    pendingAssistantIndex: -1,
    lastActText: "",
    lastToolFailed: false,
    records: [],
  };
  // An instance scored at the end of the episode needs no checklist.
  if (!hasChecklist && !instance.scoreEpisode) return terminate(state, Termination.emptyChecklist);
  // A live user opens the conversation when the instance has no user message yet.
  if (state.liveUser && firstUser < 0) return { ...state, status: "await_user" };
  return { ...state, status: "await_caller" };
}

function terminate(state: RolloutState, reason: string): RolloutState {
  return { ...state, status: "terminated", terminationReason: state.terminationReason ?? reason, pendingCalls: [] };
}

/**
 * One upstream orchestrator step was taken (TaskInstance.maxEpisodeSteps). Upstream checks the limit after every
 * step, so reaching it also replaces the ending the step itself gave (a stop token).
 */
function stepTaken(state: RolloutState): RolloutState {
  if (state.maxEpisodeSteps === undefined) return state;
  const next = { ...state, episodeSteps: state.episodeSteps + 1 };
  if (next.episodeSteps < state.maxEpisodeSteps) return next;
  return { ...next, status: "terminated", terminationReason: Termination.maxSteps, pendingCalls: [] };
}

/** The user-visible part of a reply: without its think blocks (an unclosed one at the start hides the rest). */
export function visibleReply(text: string): string {
  const stripped = stripThink(text);
  return stripped.trimStart().startsWith("<think>") ? "" : stripped;
}

/** What the machine is waiting for. */
export function nextNeed(state: RolloutState): RolloutNeed {
  switch (state.status) {
    case "await_caller":
      return { kind: "act", messages: state.messages, tools: state.tools };
    case "await_simulator": {
      const call = state.pendingCalls[state.cursor];
      return {
        kind: "rehearse",
        call,
        messages: rehearsePromptFor(state, call),
        shadow: state.options.shadowExecution && state.hasEnvironment,
      };
    }
    case "processing_tools": {
      const call = state.pendingCalls[state.cursor];
      const source = state.options.paradigm === "simulator" ? "simulator" : "environment";
      const probe = source === "environment" && state.options.fidelityProbe ? rehearsePromptFor(state, call) : undefined;
      return probe ? { kind: "tool", source, call, probe } : { kind: "tool", source, call };
    }
    case "interacting":
      return { kind: "judge", userTurnIndex: state.userTurnIndex };
    case "await_user":
      return { kind: "user", messages: state.messages };
    default:
      return { kind: "done" };
  }
}

/** The rehearse prompt for one pending call: history excludes the assistant message that made it. */
export function rehearsePromptFor(state: RolloutState, call: PendingCall): ChatMessage[] {
  const input = {
    call: { name: call.name, argumentsJson: call.argumentsJson },
    tools: state.tools,
    history: state.messages.slice(0, state.pendingAssistantIndex),
    rawCallerMessage: state.lastActText,
    fewShot: state.fewShot,
  };
  return state.rehearsePromptStyle === "compact"
    ? buildCompactRehearsePrompt(input, state.options.compactRehearsePromptOptions)
    : buildRehearsePrompt(input, state.options.rehearsePromptOptions);
}

function record(state: RolloutState, r: Omit<TurnRecord, "index" | "userTurn">): TurnRecord[] {
  return [...state.records, { ...r, index: state.records.length, userTurn: state.userTurnIndex }];
}

const noTokens = { promptTokens: [], tokens: [], logprobs: [], promptTokenCount: 0, responseTokenCount: 0 };

function generationFields(o: GenerateResult) {
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

/** Micro-step cap check before a new generation. */
function atMicroStepCap(state: RolloutState): boolean {
  return state.microSteps >= state.options.maxMicroSteps;
}

/** Enter AWAIT_CALLER, terminating on the context budget or micro-step cap. */
function toAwaitCaller(state: RolloutState): RolloutState {
  const m = state.lastActMeasured;
  if (m && m.promptTokens > 0) {
    const count = state.options.countTokens ?? defaultCountTokens;
    let added = 0;
    for (const msg of state.messages.slice(m.messageCount)) {
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
    const rehearseCodes = new Set([
      "EMPTY_SIMULATOR_OUTPUT",
      "NO_EXECUTION_RESULT_TAG_FOUND",
      "EXECUTION_RESULT_TAG_MALFORMED",
      "SIMULATOR_JSON_DECODE_ERROR",
      "INVALID_EXECUTION_RESULT_TYPE",
      "NON_SERIALIZABLE_EXECUTION_RESULT",
    ]);
    const reason =
      state.options.paradigm === "rehearse" && rehearseCodes.has(failedCode)
        ? Termination.rehearseParseError(failedCode)
        : Termination.toolError(failedCode);
    return stepTaken(terminate({ ...next, lastToolFailed: true, lastErrorCode: failedCode }, reason));
  }
  return stepTaken(toAwaitCaller(next));
}

/** Advance the machine by one event. Events that do not match the state are ignored. */
export function applyEvent(state: RolloutState, event: RolloutEvent): RolloutState {
  if (event.kind === "environment_failed") return state.status === "terminated" ? state : environmentFailed(state, event);
  switch (state.status) {
    case "await_caller":
      if (event.kind === "act") return onAct(state, event.output);
      if (event.kind === "act_failed") {
        const records = record(state, { role: "act", microStep: state.microSteps, text: "", error: generationFailure(event), ...noTokens, valid: false });
        return terminate({ ...state, records }, Termination.generationFailed);
      }
      return state;
    case "await_simulator":
      if (event.kind === "rehearse" || event.kind === "rehearse_failed") return onRehearse(state, event);
      return state;
    case "processing_tools":
      if (event.kind === "tool") return onTool(state, event.content, event.failed === true, event.probe, event.realError);
      return state;
    case "interacting":
      if (event.kind === "judged") return onJudged(state, event.stop, event.reason);
      return state;
    case "await_user":
      if (event.kind === "user") return onUser(state, event.text, event.stop, event.actions);
      if (event.kind === "user_failed") return userFailed(state, event.reason, event.reason.toUpperCase(), event.detail, "");
      return state;
    default:
      return state;
  }
}

function generationFailure(event: { error: string; cause?: string }): NonNullable<TurnRecord["error"]> {
  return { code: "GENERATION_FAILED", payload: event.error, ...(event.cause ? { cause: event.cause } : {}) };
}

function onAct(state: RolloutState, output: GenerateResult): RolloutState {
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

function onRehearse(
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

function onTool(state: RolloutState, content: string, failed: boolean, probe?: GenerateResult, realError?: boolean): RolloutState {
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

function onJudged(state: RolloutState, stop: boolean, reason?: string): RolloutState {
  // With a live user the conversation, not the checklist's length, decides when the episode ends.
  if (state.liveUser && reason === Termination.checklistComplete) return endTurn(state, false);
  return endTurn(state, stop, reason);
}

/** A finished user turn: stop, hit a cap, or move on to the next user message. */
function endTurn(state: RolloutState, stop: boolean, reason?: string): RolloutState {
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
function onUser(state: RolloutState, rawText: unknown, stop?: string, actions: LiveUserAction[] = []): RolloutState {
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
function environmentFailed(state: RolloutState, event: Extract<RolloutEvent, { kind: "environment_failed" }>): RolloutState {
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
function userFailed(state: RolloutState, reason: string, code: string, detail: string, text: string): RolloutState {
  const records = record(state, { role: "user", microStep: state.microSteps, text, error: { code, payload: detail }, ...noTokens, valid: false });
  return terminate({ ...state, records, lastErrorCode: code }, reason);
}

/** Is this an error payload produced by the act parser (for typing convenience). */
export type { ActErrorCode, ActErrorPayload };
