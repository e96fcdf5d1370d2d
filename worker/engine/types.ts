/**
 * Engine data types shared by the rollout machine, reward, GRPO and domains.
 * Plain data only (JSON-serialisable), except `ToolEnvironment`, the executable world.
 */
import type { ChatClient, ChatMessage, ToolSchema } from "./io";
import type { TurnRecord } from "./machine";
import type { ItemVerdict } from "./reward";

export const focusOnValues = [
  "assistant.tool_calls",
  "assistant.content.thinking",
  "assistant.content.user_visible_reply",
  "tool.content",
] as const;
export type FocusOn = (typeof focusOnValues)[number];

/**
 * A check the engine evaluates itself, without an LLM judge (built-in domains).
 * - `tool_called`: some call of the step has this name and its arguments contain `args` (deep subset);
 * - `reply_contains`: the user-visible reply contains every string of `all` (case-insensitive);
 * - `state_equals`: after replaying the episode's calls in a fresh environment, the value at `path`
 *   of the environment snapshot deep-equals `value`.
 */
export type ProgrammaticCheck =
  | { type: "tool_called"; name: string; args?: Record<string, unknown> }
  | { type: "reply_contains"; all: string[] }
  | { type: "state_equals"; path: string[]; value: unknown };

/** One checklist item (CM2 format, §6.3) plus an optional programmatic check. */
export interface ChecklistItem {
  id: string;
  question: string;
  focus_on: FocusOn;
  pass_condition: string;
  failure_examples: string[];
  evidence: { snippet: string; [k: string]: unknown }[];
  weight: number;
  required_for_next_turn: boolean;
  check?: ProgrammaticCheck;
}

/** checklists[c][turn] = items of checklist c for user turn `turn`. */
export type ChecklistList = ChecklistItem[][][];

/**
 * A tool's answer together with the environment's own error flag (an MCP result's `isError`): the
 * fidelity score then trusts the flag instead of guessing an error from the text.
 */
export interface ToolOutcome {
  content: string;
  isError: boolean;
}

/**
 * The environment itself failed — its server did not start, crashed, hung, answered out of protocol
 * or beyond its size limit — as opposed to a tool answering with an error. Thrown by
 * `EnvironmentFactory.create` or `ToolEnvironment.execute`; the episode then ends with
 * `environment_error:<code>`, is recorded, and is left out of the training update.
 */
export class EnvironmentFailure extends Error {
  constructor(
    /** Upper-case reason, e.g. START_FAILED, CRASHED, TIMEOUT, RESULT_TOO_LARGE, MALFORMED_RESULT. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "EnvironmentFailure";
  }
}

/** A real, executable world for one episode. `execute` returns the tool message content (compact JSON). */
export interface ToolEnvironment {
  /** The tool message content, or the content with the environment's error flag; throws EnvironmentFailure when the world itself broke. */
  execute(name: string, argumentsJson: string): string | ToolOutcome | Promise<string | ToolOutcome>;
  /** JSON view of the world state (for `state_equals` checks). */
  snapshot(): unknown;
  /** Releases what the world holds (e.g. a server process started for this episode); called once after the episode or replay. */
  close?(): void | Promise<void>;
  /**
   * The episode's initial messages when the world decides them (BFCL memory: the system message shows the
   * memory the prerequisite conversations left); absent: the instance's own `messages`.
   */
  messages?: ChatMessage[];
}

/** What the rollout tells an environment factory about the episode it creates a world for. */
export interface WorldContext {
  /** The rollout's index among the K rollouts of its instance (trial k of an evaluation). */
  rolloutIndex: number;
  /**
   * Runs another episode with the same policy and settings, to completion (e.g. BFCL memory: the
   * prerequisite conversations that fill the memory before a question). Its world is created from its
   * own instance; it is not scored into the step and not stored as a trajectory.
   */
  runEpisode(instance: TaskInstance, label: string): Promise<{ messages: ChatMessage[]; records: TurnRecord[]; terminationReason: string }>;
}

export interface EnvironmentFactory {
  /** A fresh world in the instance's initial state (may start processes, hence async). */
  create(ctx?: WorldContext): ToolEnvironment | Promise<ToolEnvironment>;
}

/** A reference call and its result, for few-shot blocks (§1.5 `id_by_tool_call_response`). */
export interface FewShotExample {
  name: string;
  argumentsJson: string;
  result: string;
}

export type RehearsePromptStyle = "full" | "compact";

/**
 * A tool call the simulated user made on its own side of the world before its message (tau2 telecom: the
 * user's phone), with the world's answer. The agent never sees it; the episode records it (role `user_tool`).
 */
export interface LiveUserAction {
  call: { id: string; name: string; argumentsJson: string };
  content: string;
  /** The world's own error flag for `content`. */
  error?: boolean;
}

/** A simulated user's next message; `stop` (a termination reason) ends the episode right after it. */
export interface LiveUserReply {
  text: string;
  stop?: string;
  /** The user's own tool calls that came before `text`, in order. */
  actions?: LiveUserAction[];
}

/**
 * A live user (e.g. tau2's user simulator). When an instance has one, the rollout asks it for every
 * user message (including the first, when `messages` has none) instead of replaying `followUpUserMessages`.
 */
export interface LiveUser {
  /**
   * `messages` is the agent-side conversation so far; the instance decides what the simulated user sees.
   * `world` is the episode's environment, when the rollout created one (always, with `needsWorld`).
   */
  next(client: ChatClient, messages: ChatMessage[], opts: { signal?: AbortSignal; world?: ToolEnvironment }): Promise<LiveUserReply>;
  /**
   * The user acts on the episode's world (its own device), so the rollout creates the world in every
   * paradigm; the agent's calls still reach it only where they execute for real (environment paradigm,
   * shadow execution).
   */
  needsWorld?: boolean;
}

export interface EpisodeScoreContext {
  messages: ChatMessage[];
  records: TurnRecord[];
  terminationReason: string;
  /** The rollout's index among the K rollouts of its instance (as WorldContext.rolloutIndex). */
  rolloutIndex?: number;
  /**
   * The run's judge (reward.judge), for scorers that ask an LLM (VitaBench's rubric judge); absent when the run
   * names none. The scorer's own calls are its only I/O; the engine makes none for it.
   */
  judge?: ChatClient;
}

/** An episode-level reward in [0, 1] computed after termination (replaces the sum of turn rewards). */
export interface EpisodeScore {
  reward: number;
  verdicts: ItemVerdict[];
  /** Kept with the trajectory's judgements (e.g. a reward breakdown). */
  detail?: unknown;
  /**
   * The benchmark's own verdict (τ²: reward 1.0; BFCL: the checker passed). Absent: reward 1.0 is a
   * success. Never derived from a partial reward.
   */
  success?: boolean;
  /** Set when the episode could not be scored for reasons outside the policy: it is an error with this cause. */
  error?: string;
  /** Which part failed when `error` is set: the judge the scorer asked, or the scorer itself (default). */
  errorKind?: "judge" | "scoring";
}

/** A task instance as the engine consumes it (normalised from built-in domains or CM2 imports). */
export interface TaskInstance {
  id: string;
  dataSource: string;
  /** Initial messages: optional system + the first user message. */
  messages: ChatMessage[];
  tools: ToolSchema[];
  /** Later user messages, replayed verbatim after each finished turn (userTurns[0] = second user turn). */
  followUpUserMessages: string[];
  checklists: ChecklistList;
  /** Full reference conversation (OpenAI format), when known. */
  reference?: ChatMessage[];
  /** Few-shot pairs for the rehearse prompt (derived from `reference` when absent). */
  fewShot?: FewShotExample[];
  /** Executable environment, when the task has one. */
  environment?: EnvironmentFactory;
  /** Which rehearse prompt the engine sends for this instance (default "full"). */
  rehearsePromptStyle?: RehearsePromptStyle;
  /** Simulated user asked at turn ends (needs `userSimulator` among the rollout clients). */
  liveUser?: LiveUser;
  /**
   * End-of-episode reward; with it an instance needs no checklist. Without a checklist and without a
   * live user, every scripted user turn is played (`followUpUserMessages`): a reply without calls ends
   * the turn and the next scripted message follows (BFCL multi-turn).
   */
  scoreEpisode?(ctx: EpisodeScoreContext): EpisodeScore | Promise<EpisodeScore>;
  /**
   * Tools offered from each user turn on (index 0 = the first turn); absent: `tools` throughout. A later
   * turn may add tools (BFCL miss_func reveals a held-out function at its turn).
   */
  toolsByUserTurn?: ToolSchema[][];
  /**
   * More act steps than this within one user turn end the episode (`max_acts_per_user_turn`), checked
   * after the step's calls ran (BFCL's MAXIMUM_STEP_LIMIT of 20 steps per turn).
   */
  maxActsPerUserTurn?: number;
  /**
   * A reply's calls run only while the calls already run in its user turn are at most this many; a reply after that
   * is kept with its calls unrun and ends the episode as `max_tool_calls` (FinMCP-Bench's max_tool_num of 20: upstream
   * starts a new round while its running count of executed calls is ≤ 20).
   */
  maxExecutedCallsPerUserTurn?: number;
  /**
   * A reply whose user-visible text contains one of these ends the episode as `agent_stop` once it is appended (its
   * calls are not run): the agent's own end of the conversation (VitaBench's "###STOP###").
   */
  agentStopTokens?: readonly string[];
  /**
   * Upstream orchestrator steps (τ²-bench / VitaBench): every user message, every agent message and every batch of
   * tool answers counts one; reaching this many ends the episode as `max_steps`, also when that step itself ended it.
   */
  maxEpisodeSteps?: number;
  /** The live user may say the same thing three times in a row (the engine's stall guard is off; VitaBench has none). */
  allowRepeatedUserMessages?: boolean;
  /**
   * The episode is the policy's first reply alone: its calls are scored by `scoreEpisode` and never
   * executed (single-turn function-calling benchmarks such as BFCL's AST categories). Ends as `answered`.
   */
  answerOnly?: boolean;
}
