/**
 * tau2 retail tasks as engine instances, usable in all three rollout paradigms:
 * - `environment`: `createEnvironment().call(name, args)` answers for real;
 * - `rehearse` / `simulator`: responses are written by a model, and `score` still replays the episode's
 *   calls on a fresh real DB, so the reward is the true end state × communicate (spec §10).
 * The first user turn comes from a user simulator (`userTurn`), after the fixed greeting.
 */
import type { ChatClient, ChatMessage, ToolSchema } from "../../engine/io";
import type { ChecklistItem, TaskInstance, ToolEnvironment } from "../../engine/types";
import { RetailEnv, type ToolResult } from "./env";
import { loadRetailDb, type RetailDb } from "./model";
import { agentSystemPrompt, findStopToken, GREETING, retailToolSchemas, STOP_TOKENS, userSystemPrompt, type StopToken } from "./prompts";
import { replayGoldActions } from "./replay";
import { scoreTau2Episode, type RewardBreakdown, type ScoredToolCall } from "./scoring";
import { loadTasks, retailDataFiles, type Tau2Task } from "./tasks";
import { readFileSync } from "node:fs";

export interface ExecutableEnvironment {
  call(name: string, args: unknown): ToolResult;
  /** v0.2.0 DB hash of the current state. */
  hash(): string;
}

export interface Tau2EpisodeOutcome {
  /** Every tool call the agent made, in order. `recordedContent` only when the response came from the real environment. */
  toolCalls: ScoredToolCall[];
  /** Every agent text, including text beside tool calls (the greeting is added by `score`). */
  assistantTexts: string[];
  /** True for max-steps or otherwise premature ends: reward 0. */
  premature: boolean;
}

export interface Tau2EngineInstance {
  /** "tau2:retail/<task id>" */
  id: string;
  dataset: "tau2:retail";
  split: "train" | "test";
  taskId: string;
  tools: ToolSchema[];
  /** The agent's initial context: its system message (policy); the greeting is not part of it (spec §7). */
  messages: ChatMessage[];
  greeting: string;
  stopTokens: readonly string[];
  /** The user simulator's system prompt (guidelines + scenario). */
  userSystemPrompt: string;
  /** A fresh real environment for this instance (copy-on-write over the shared DB). */
  createEnvironment(): ExecutableEnvironment;
  /**
   * Next user message. `visible` is the conversation the user saw, agent-side roles
   * (assistant = agent text, user = earlier user turns); the greeting is prepended here.
   */
  userTurn(userSim: ChatClient, visible: ChatMessage[], opts?: { temperature?: number; signal?: AbortSignal }): Promise<{ text: string; stop?: StopToken }>;
  /** reward = end-state DB match × communicate (v0.2.0). */
  score(outcome: Tau2EpisodeOutcome): RewardBreakdown;
}

export interface Tau2RetailSource {
  db: RetailDb;
  tasks: Tau2Task[];
  policy: string;
  userGuidelines: string;
}

/** Load the retail data once (db parsed once; episodes clone cheaply). */
export function loadTau2RetailSource(files = retailDataFiles()): Tau2RetailSource {
  return {
    db: loadRetailDb(files.db),
    tasks: loadTasks(files.tasks),
    policy: readFileSync(files.policy, "utf8"),
    userGuidelines: readFileSync(files.userGuidelines, "utf8"),
  };
}

export function tau2RetailInstance(source: Tau2RetailSource, task: Tau2Task, split: "train" | "test" = "train"): Tau2EngineInstance {
  const userPrompt = userSystemPrompt(source.userGuidelines, task);
  return {
    id: `tau2:retail/${task.id}`,
    dataset: "tau2:retail",
    split,
    taskId: task.id,
    tools: retailToolSchemas(),
    messages: [{ role: "system", content: agentSystemPrompt(source.policy) }],
    greeting: GREETING,
    stopTokens: STOP_TOKENS,
    userSystemPrompt: userPrompt,
    createEnvironment: () => new RetailEnv(source.db),
    async userTurn(userSim, visible, opts = {}) {
      // The user sees the conversation with roles flipped (spec §8).
      const flipped: ChatMessage[] = [{ role: "user", content: GREETING }];
      for (const m of visible) {
        if (m.role === "assistant" && !m.tool_calls?.length && m.content.trim()) flipped.push({ role: "user", content: m.content });
        else if (m.role === "user") flipped.push({ role: "assistant", content: m.content });
      }
      const { text } = await userSim.complete({ messages: [{ role: "system", content: userPrompt }, ...flipped], temperature: opts.temperature ?? 0, signal: opts.signal });
      return { text, stop: findStopToken(text) };
    },
    score: (outcome) => scoreTau2Episode(task, source.db, { ...outcome, assistantTexts: [GREETING, ...outcome.assistantTexts] }),
  };
}

/** All tasks of a loaded source as engine instances. */
export function tau2RetailInstances(source: Tau2RetailSource, split: "train" | "test" = "train"): Tau2EngineInstance[] {
  return source.tasks.map((t) => tau2RetailInstance(source, t, split));
}

/** The engine's ToolEnvironment over a fresh RetailEnv; the snapshot is the v0.2.0 DB hash. */
export function retailToolEnvironment(db: RetailDb): ToolEnvironment & { call(name: string, args: unknown): ToolResult } {
  const env = new RetailEnv(db);
  return {
    call: (name, args) => env.call(name, args),
    execute(name, argumentsJson) {
      let args: unknown;
      try {
        args = JSON.parse(argumentsJson);
      } catch {
        return `Error: the arguments of ${name} are not valid JSON`;
      }
      return env.call(name, args).content;
    },
    snapshot: () => ({ db_hash: env.hash() }),
  };
}

/**
 * A tau2 task as the engine's TaskInstance (single user turn: the engine replays follow-ups verbatim and
 * has no live user simulator). The checklist has programmatic checks only, no judge:
 * - the end-state DB hash equals the gold replay's (`state_equals` on the snapshot), and
 * - each communicate_info string appears in the reply (`reply_contains`).
 * The engine sums checklist weights, so this reward gives partial credit (DB weight 0.5 when the task also
 * has communicate items); the exact v0.2.0 product is `Tau2EngineInstance.score`.
 */
export function tau2TaskInstance(
  source: Tau2RetailSource,
  task: Tau2Task,
  firstUserMessage: string,
  followUpUserMessages: string[] = [],
): TaskInstance {
  const goldHash = replayGoldActions(task, source.db).db_hash;
  const infos = task.evaluation_criteria?.communicate_info ?? [];
  const item = (id: string, question: string, focus_on: ChecklistItem["focus_on"], weight: number, check: ChecklistItem["check"]): ChecklistItem => ({
    id,
    question,
    focus_on,
    pass_condition: question,
    failure_examples: [],
    evidence: [],
    weight,
    required_for_next_turn: false,
    check,
  });
  const items: ChecklistItem[] = [
    item("db", "Does the store database end in the expected state?", "assistant.tool_calls", infos.length > 0 ? 0.5 : 1, {
      type: "state_equals",
      path: ["db_hash"],
      value: goldHash,
    }),
    ...infos.map((info, i) =>
      item(`communicate_${i}`, `Does the agent tell the user "${info}"?`, "assistant.content.user_visible_reply", 0.5 / infos.length, {
        type: "reply_contains",
        all: [info],
      }),
    ),
  ];
  const turns = 1 + followUpUserMessages.length;
  return {
    id: `tau2:retail/${task.id}`,
    dataSource: "tau2:retail",
    messages: [
      { role: "system", content: agentSystemPrompt(source.policy) },
      { role: "user", content: firstUserMessage },
    ],
    tools: retailToolSchemas(),
    followUpUserMessages,
    // The end state is judged after the last user turn; earlier turns carry no items.
    checklists: [Array.from({ length: turns }, (_, t) => (t === turns - 1 ? items : []))],
    environment: { create: () => retailToolEnvironment(source.db) },
  };
}
