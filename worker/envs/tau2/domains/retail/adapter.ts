/**
 * Retail's engine-facing API, as it has always been called (the tests, the retail CLI path), now over the
 * shared harness:
 * - `tau2LiveInstance`: a retail task as the engine's TaskInstance (harness/live.ts);
 * - `tau2RetailInstance`: the task with its own `userTurn` and exact `score` (for callers that drive the
 *   episode themselves), and `tau2TaskInstance`: the checklist form (programmatic DB-hash and communicate
 *   checks, no live user);
 * - `scoreTau2Episode` / `replayGoldActions` / `runCalls`: the harness evaluator and replays on a retail DB.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import type { ChatClient, ChatMessage, ToolSchema } from "../../../../engine/io";
import type { ChecklistItem, TaskInstance, ToolEnvironment } from "../../../../engine/types";
import { agentSystemPrompt, GREETING, retailToolSchemas, STOP_TOKENS, userSystemPrompt, type StopToken } from "../../../../../lib/tau2/prompts";
import { loadTasks, retailDataFiles, Tau2InputError, type Tau2Task } from "../../../../../lib/tau2/tasks";
import { tau2SourceOf } from "../../harness/data";
import { evaluateEpisode, type RewardBreakdown, type ScoredToolCall, type ScoringInput } from "../../harness/evaluator";
import { tau2Instance, type Tau2LiveOptions } from "../../harness/live";
import { replayGold, type CallResult } from "../../harness/replay";
import type { Tau2Source } from "../../harness/source";
import { userTurn } from "../../harness/user";
import { RetailEnv, type ToolResult } from "./env";
import { loadRetailDb, type RetailDb } from "./model";

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

const harnessSources = new WeakMap<object, Tau2Source>();

/** The harness's view of a retail source. */
export function retailHarnessSource(source: Tau2RetailSource, split: "train" | "test" = "train"): Tau2Source {
  let h = harnessSources.get(source);
  if (!h) {
    h = tau2SourceOf({ domain: "retail", db: source.db }, source.tasks, { policy: source.policy, userGuidelines: source.userGuidelines }, split);
    harnessSources.set(source, h);
  }
  return h;
}

/** A retail source over a bare DB (scoring and replays need no texts). */
const dbSources = new WeakMap<RetailDb, Tau2Source>();
function sourceOfDb(db: RetailDb): Tau2Source {
  let h = dbSources.get(db);
  if (!h) {
    h = tau2SourceOf({ domain: "retail", db }, [], { policy: "", userGuidelines: "" });
    dbSources.set(db, h);
  }
  return h;
}

/** A retail task as the engine's TaskInstance with a live user and the exact v0.2.0 reward. */
export function tau2LiveInstance(source: Tau2RetailSource, task: Tau2Task, opts: Tau2LiveOptions = {}): TaskInstance {
  return tau2Instance(retailHarnessSource(source), task, opts);
}

/** Score one episode (harness/evaluator.ts) on a retail DB. */
export function scoreTau2Episode(task: Tau2Task, pristine: RetailDb, input: ScoringInput): RewardBreakdown {
  return evaluateEpisode(sourceOfDb(pristine), task, input);
}

export interface GoldReplay {
  task_id: string;
  errors: number;
  db_hash: string;
  results: (ToolResult & { name: string })[];
}

/** Apply the task's gold actions in order on a fresh copy of `pristine`, continuing after errors. */
export function replayGoldActions(task: Tau2Task, pristine: RetailDb): GoldReplay {
  const r = replayGold(sourceOfDb(pristine), task);
  return { task_id: task.id, errors: r.errors, db_hash: r.db_hash, results: r.results.map((c: CallResult) => ({ name: c.name, content: c.content, error: c.error })) };
}

export const toolCallSchema = z
  .object({ tool: z.string().min(1), arguments: z.record(z.unknown()).default({}), requestor: z.enum(["assistant", "user"]).default("assistant") })
  .strict();
export type ToolCallSpec = z.infer<typeof toolCallSchema>;

/** Validate a parsed calls file; the error names the position of the first bad call. */
export function parseCalls(value: unknown, source = "calls file"): ToolCallSpec[] {
  if (!Array.isArray(value)) throw new Tau2InputError(`${source}: expected a JSON array of {"tool", "arguments"} objects`);
  return value.map((raw, i) => {
    const result = toolCallSchema.safeParse(raw);
    if (!result.success) {
      const issues = result.error.issues.map((x) => `${x.path.join(".") || "(call)"}: ${x.message}`).join("; ");
      throw new Tau2InputError(`${source}: call #${i} is invalid: ${issues}`);
    }
    return result.data;
  });
}

export function runCalls(calls: ToolCallSpec[], pristine: RetailDb): { results: (ToolResult & { tool: string })[]; env: RetailEnv } {
  const env = new RetailEnv(pristine);
  const results = calls.map((c) => ({ tool: c.tool, ...env.call(c.tool, c.arguments) }));
  return { results, env };
}

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
  /** The agent's initial context: its system message (policy); the greeting is not part of it. */
  messages: ChatMessage[];
  greeting: string;
  stopTokens: readonly string[];
  /** The user simulator's system prompt (guidelines + scenario). */
  userSystemPrompt: string;
  /** A fresh real environment for this instance (copy-on-write over the shared DB). */
  createEnvironment(): ExecutableEnvironment;
  /** Next user message; `visible` is the agent-side conversation (the greeting is prepended here). */
  userTurn(userSim: ChatClient, visible: ChatMessage[], opts?: { temperature?: number; signal?: AbortSignal }): Promise<{ text: string; stop?: StopToken }>;
  /** reward = end-state DB match × communicate (v0.2.0). */
  score(outcome: Tau2EpisodeOutcome): RewardBreakdown;
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
      const { text, stop } = await userTurn(userSim, { systemPrompt: userPrompt, tools: null, visible, temperature: opts.temperature ?? 0, signal: opts.signal });
      return { text, stop };
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
 * A retail task as the engine's checklist TaskInstance (single user turn, no live user). Programmatic
 * checks only: the end-state DB hash equals the gold replay's (`state_equals`), and each communicate_info
 * string appears in the reply (`reply_contains`). The engine sums checklist weights (DB weight 0.5 when
 * the task also has communicate items); the exact v0.2.0 product is `tau2RetailInstance(…).score`.
 */
export function tau2TaskInstance(source: Tau2RetailSource, task: Tau2Task, firstUserMessage: string, followUpUserMessages: string[] = []): TaskInstance {
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
    item("db", "Does the store database end in the expected state?", "assistant.tool_calls", infos.length > 0 ? 0.5 : 1, { type: "state_equals", path: ["db_hash"], value: goldHash }),
    ...infos.map((info, i) =>
      item(`communicate_${i}`, `Does the agent tell the user "${info}"?`, "assistant.content.user_visible_reply", 0.5 / infos.length, { type: "reply_contains", all: [info] }),
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
