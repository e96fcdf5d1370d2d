/**
 * A task as plain data — what the importers (lib/cm2.ts, lib/tasks-jsonl.ts) store and the engine runs: its
 * messages and tools, scripted user turns, checklists (CM2 format, envace-method.md §6.3) and the verdicts on
 * them. JSON-serialisable; the runtime task instance with its environment factory, live user and episode
 * scorer is the engine's `TaskInstance` (worker/engine/types.ts), which extends `TaskSpec`.
 */
import type { ChatMessage, ToolSchema } from "./chat";

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

/** The four reasoning fields of the checklist judge's verdict (§3.1), before its boolean `answer`. */
export const verdictFields = [
  "high_level_understanding_of_the_question",
  "analysis_of_if_focus_on",
  "analysis_of_pass_condition",
  "analysis_of_failure_examples",
] as const;
export type VerdictAnalysis = Record<(typeof verdictFields)[number], string>;

/** The verdict on one checklist item at one assistant step (kept with the trajectory's judgements). */
export interface ItemVerdict {
  checklist: number;
  userTurn: number;
  /** Assistant step within the turn (0-based). */
  step: number;
  itemId: string;
  question: string;
  weight: number;
  required: boolean;
  passed: boolean;
  source: "judge" | "programmatic" | "tool_error";
  /** The judge's reasoning: the checklist judge's four fields, or an episode scorer's own (e.g. a justification and the window it came from). */
  analysis?: VerdictAnalysis | Record<string, string>;
  callSuccess?: boolean;
  apiFailed?: boolean;
  error?: string;
}

/** A reference call and its result, for few-shot blocks (§1.5 `id_by_tool_call_response`). */
export interface FewShotExample {
  name: string;
  argumentsJson: string;
  result: string;
}

export type RehearsePromptStyle = "full" | "compact";

/** A task as plain data (normalised from built-in domains, CM2 rows or the task JSONL). */
export interface TaskSpec {
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
  /** Which rehearse prompt the engine sends for this instance (default "full"). */
  rehearsePromptStyle?: RehearsePromptStyle;
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
