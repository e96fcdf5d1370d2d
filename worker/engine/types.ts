/**
 * Engine data types shared by the rollout machine, reward, GRPO and domains: the runtime task instance
 * (a plain `TaskSpec` with its environment factory, live user and episode scorer) and what those exchange.
 * The plain task and checklist shapes live in contracts/tasks.ts (lib/ shares them) and are re-exported here.
 */
import type { ChatClient, ChatMessage } from "../../contracts/chat";
import type { ItemVerdict, TaskSpec } from "../../contracts/tasks";
import type { TurnRecord } from "./machine/records";

export { focusOnValues } from "../../contracts/tasks";
export type { ChecklistItem, ChecklistList, FewShotExample, FocusOn, ItemVerdict, ProgrammaticCheck, RehearsePromptStyle, TaskSpec } from "../../contracts/tasks";

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

/** A task instance as the engine consumes it: the plain task (contracts/tasks.ts) with what runs it. */
export interface TaskInstance extends TaskSpec {
  /** Executable environment, when the task has one. */
  environment?: EnvironmentFactory;
  /** Simulated user asked at turn ends (needs `userSimulator` among the rollout clients). */
  liveUser?: LiveUser;
  /**
   * End-of-episode reward; with it an instance needs no checklist. Without a checklist and without a
   * live user, every scripted user turn is played (`followUpUserMessages`): a reply without calls ends
   * the turn and the next scripted message follows (BFCL multi-turn).
   */
  scoreEpisode?(ctx: EpisodeScoreContext): EpisodeScore | Promise<EpisodeScore>;
}
