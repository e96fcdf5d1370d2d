/**
 * tau2 retail tasks as engine instances, usable in all three rollout paradigms:
 * - `environment`: `createEnvironment().call(name, args)` answers for real;
 * - `rehearse` / `simulator`: responses are written by a model, and `score` still replays the episode's
 *   calls on a fresh real DB, so the reward is the true end state × communicate (spec §10).
 * The first user turn comes from a user simulator (`userTurn`), after the fixed greeting.
 */
import type { ChatClient, ChatMessage, ToolSchema } from "../../engine/io";
import { RetailEnv, type ToolResult } from "./env";
import { loadRetailDb, type RetailDb } from "./model";
import { agentSystemPrompt, findStopToken, GREETING, retailToolSchemas, STOP_TOKENS, userSystemPrompt, type StopToken } from "./prompts";
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
