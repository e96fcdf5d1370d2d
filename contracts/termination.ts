/**
 * Why an episode ended (envace-method.md §1.8): the reasons the rollout machine (worker/engine/machine) sets,
 * stored as plain strings on trajectories and read by the outcomes (lib/outcomes.ts) and the pages.
 */
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
