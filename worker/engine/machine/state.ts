/** The rollout machine's state, what it waits for (needs) and what moves it on (events). Types only. */
import type { Paradigm } from "../../../contracts/run-config";
import type { ChatMessage, GenerateResult, ToolSchema } from "../io";
import type { CompactRehearsePromptOptions, RehearsePromptOptions } from "../prompts";
import type { FewShotExample, LiveUserAction, RehearsePromptStyle } from "../types";
import type { PendingCall, TurnRecord } from "./records";

export type RolloutStatus = "pending" | "await_caller" | "await_simulator" | "processing_tools" | "interacting" | "await_user" | "terminated";

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
