/** A rollout's initial state, and what the machine waits for in each state (with the rehearse prompt it needs). */
import { Termination } from "../../../contracts/termination";
import type { ChatMessage } from "../io";
import { buildCompactRehearsePrompt, buildRehearsePrompt, fewShotFromReference } from "../prompts";
import type { TaskInstance } from "../types";
import { terminate } from "./limits";
import type { PendingCall } from "./records";
import type { RolloutNeed, RolloutOptions, RolloutState } from "./state";

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

