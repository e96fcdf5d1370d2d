/**
 * Checklist reward (envace-method.md §3): per user turn, every checklist item is checked at every
 * assistant step of the turn (an LLM judge call, or a programmatic check for built-in domains);
 * an item passes if any step passes it; turn score = Σ weight·passed per checklist, summed over
 * checklists; the episode is normalised as R = E / numChecklists / numChecklistTurns.
 */
import type { ChatClient, ChatMessage } from "./io";
import { pyJsonDumps } from "../../lib/python/json";
import { pyStrip } from "../../lib/python/repr";
import { completeWithin } from "./chat-call";
import { isToolErrorContent, safeParseJson } from "./parsers";
import { deepEqual } from "./fidelity";
import { type ItemVerdict, type VerdictAnalysis, verdictFields } from "../../contracts/tasks";
import { Termination } from "../../contracts/termination";
import type { ChecklistItem, ProgrammaticCheck, TaskInstance, ToolEnvironment } from "./types";

// The verdict shapes are plain data in contracts/tasks.ts; re-exported for the engine's importers.
export { verdictFields };
export type { ItemVerdict, VerdictAnalysis };

// ---------------------------------------------------------------------------------------------
// Verdict schema and judge prompt (§3.1, §3.2; the reference's headers, our own instructions)
// ---------------------------------------------------------------------------------------------

export const JUDGE_VERDICT_SCHEMA = {
  name: "evaluation_verdict",
  strict: true,
  schema: {
    type: "object",
    properties: {
      high_level_understanding_of_the_question: { type: "string" },
      analysis_of_if_focus_on: { type: "string" },
      analysis_of_pass_condition: { type: "string" },
      analysis_of_failure_examples: { type: "string" },
      answer: { type: "boolean" },
    },
    required: [...verdictFields, "answer"],
    additionalProperties: false,
  },
} as const;

/** Item data in the judge prompt as the reference writes it: `json.dumps(value, ensure_ascii=True, indent=2)`. */
function json(value: unknown): string {
  try {
    return pyJsonDumps(value, { indent: 2 });
  } catch {
    return "null";
  }
}

/**
 * The reference's split of an assistant message for the judge (checklist_reward.get_messages_str_v2):
 * thinking = the text inside the first `<think>…</think>` (not trimmed); reply = what follows the first
 * occurrence of `thinking + "</think>"`, stripped, `None` when empty. Without a think block the whole
 * content is thinking and the reply is `None` (a quirk kept on purpose).
 */
export function judgeThinkingSplit(content: string): { thinking: string; reply: string } {
  const m = /<think>([\s\S]*?)<\/think>/.exec(content);
  if (!m) return { thinking: content, reply: "None" };
  const thinking = m[1]!;
  const reply = pyStrip(content.split(thinking + "</think>")[1] ?? "");
  return { thinking, reply: reply === "" ? "None" : reply };
}

/** `json.dumps(message["tool_calls"])`: the full structure (id, type, function name and arguments string), ensure_ascii. */
function judgeToolCalls(calls: NonNullable<ChatMessage["tool_calls"]>): string {
  const structured = calls.map((c) => ({ id: c.id, type: c.type, function: { name: c.function.name, arguments: c.function.arguments } }));
  return pyJsonDumps(structured);
}

/**
 * Serialise messages for the judge exactly as the reference does (checklist_reward.get_messages_str_v2):
 * each message ends with a newline and messages are concatenated; turns are numbered from 0 at each user
 * message of the slice given (so the current turn, serialised from its user message, is `# Turn: 0`);
 * steps restart at 0 at every user or system message; `tool_call` is the JSON of the message's
 * `tool_calls`, or, when it has none, a reply that still holds tool-call tags (with the tags renamed and
 * the reply then `None`), else `None`.
 */
export function serializeForJudge(messages: ChatMessage[]): string {
  let out = "";
  let turn = -1;
  let step = 0;
  for (const m of messages) {
    const content = m.content ?? "None";
    if (m.role === "system") {
      out += `Role: system\ncontent: ${content}\n`;
      step = 0;
    } else if (m.role === "user") {
      turn++;
      step = 0;
      out += `# Turn: ${turn}\nRole: user\ncontent: ${content}\n`;
    } else if (m.role === "assistant") {
      let { thinking, reply } = judgeThinkingSplit(content);
      let toolCall: string;
      if (m.tool_calls != null) toolCall = judgeToolCalls(m.tool_calls);
      else if (reply.includes("<tool_call>") || reply.includes("</tool_call>")) {
        toolCall = reply.replaceAll("<tool_call>", "<|tool_call_start|>").replaceAll("</tool_call>", "<|tool_call_end|>");
        reply = "None";
      } else toolCall = "None";
      out += `## Step: ${step}\nRole: assistant\ncontent.thinking: ${thinking}\ncontent.user_visible_reply: ${reply}\ntool_call: ${toolCall}\n`;
      step++;
    } else if (m.role === "tool") out += `Role: tool\ncontent: ${content}\n`;
  }
  return out;
}

/**
 * The judge prompt (checklist_reward.get_input_prompt_v2). Its section headers and item labels are the
 * reference's, verbatim, and laid out as the reference lays them out (previous messages inserted as they
 * are, nothing when there are none; a blank line after the current messages), so a judge sees the same
 * document shape and pass rates stay comparable with the reference's; the instructions under each header
 * are in our own words.
 */
export function buildJudgePrompt(previous: string, current: string, item: ChecklistItem): string {
  return `# Role
You grade one item of a checklist against the messages between a user, an AI assistant and its tools, carefully and literally.

# Objective
Give a strict JSON verdict and nothing else, following the steps below.

# Criteria
**Question:** ${item.question}
**Focus on:** ${item.focus_on}
**Pass condition:** ${item.pass_condition}
**Failure examples:** ${json(item.failure_examples ?? [])}
**Reference snippet:** ${json((item.evidence ?? []).map((e) => e.snippet))}

# Previous Messages
${previous}# Current Messages to Evaluate
${current}
# Special rule of tool call
- A tool call written only inside content.thinking (with none in the tool_call part) was never made: no tool call of that step is valid.
- If a tool response reports an error, the tool calls of the latest assistant step before it (only that one) are not valid.

# Evaluation Process (Align each step to a JSON output field)
1. high_level_understanding_of_the_question: say in one or two sentences what the item asks and what meeting it means here.
2. analysis_of_if_focus_on: check whether the part named in "Focus on" is present in the Current Messages.
3. analysis_of_pass_condition: decide whether the pass condition is met completely.
4. analysis_of_failure_examples: for each failure example, say "triggered" or "not triggered" and why, briefly.
5. answer: true only if the focus part is present, the pass condition is fully met and no failure example is triggered; otherwise false.

# Output Format
One JSON object with exactly the keys ${verdictFields.join(", ")} (strings) and answer (a boolean).`;
}

// ---------------------------------------------------------------------------------------------
// Judge calls: concurrency limit, timeout, retries with backoff
// ---------------------------------------------------------------------------------------------

export interface JudgeConfig {
  concurrency: number;
  timeoutMs: number;
  /** Attempts per check (reference JUDGE_RETRY). */
  retries: number;
  temperature: number;
  topP: number;
  maxTokens: number;
  /** Injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Backoff after failed attempt n (0-based), default min(2^(n+1), 30) s. */
  backoffMs?: (attempt: number) => number;
}

export interface CheckOutcome {
  answer: boolean;
  /** The judge returned a usable boolean verdict. */
  callSuccess: boolean;
  /** Transport failed on every attempt. */
  apiFailed: boolean;
  analysis?: VerdictAnalysis;
  error?: string;
  attempts: number;
}

/** A counting semaphore shared by every rollout of a step. */
export class Semaphore {
  private active = 0;
  private waiters: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiters.push(resolve));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiters.shift();
      if (next) next();
      else this.active--;
    }
  }
}

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class ChecklistJudge {
  private readonly semaphore: Semaphore;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Counters for metrics. */
  calls = 0;
  failedCalls = 0;

  constructor(
    private readonly client: ChatClient | undefined,
    private readonly config: JudgeConfig,
  ) {
    this.semaphore = new Semaphore(config.concurrency);
    this.sleep = config.sleep ?? realSleep;
  }

  /** One judge call with retries; never throws. */
  async check(prompt: string): Promise<CheckOutcome> {
    if (!this.client) return { answer: false, callSuccess: false, apiFailed: true, error: "no judge configured", attempts: 0 };
    const client = this.client;
    return this.semaphore.run(async () => {
      this.calls++;
      let lastError = "unknown";
      const attempts = Math.max(1, this.config.retries);
      for (let attempt = 0; attempt < attempts; attempt++) {
        try {
          const res = await completeWithin(client, this.config.timeoutMs, {
            messages: [{ role: "user", content: prompt }],
            temperature: this.config.temperature,
            topP: this.config.topP,
            maxTokens: this.config.maxTokens,
            jsonSchema: { name: JUDGE_VERDICT_SCHEMA.name, schema: JUDGE_VERDICT_SCHEMA.schema as unknown as Record<string, unknown>, strict: true },
          });
          const parsed = safeParseJson(res.text);
          if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null) {
            lastError = `verdict is not a JSON object: ${String(res.text).slice(0, 120)}`;
          } else {
            const v = parsed.value as Record<string, unknown>;
            const analysis = Object.fromEntries(verdictFields.map((f) => [f, typeof v[f] === "string" ? v[f] : ""])) as VerdictAnalysis;
            if (typeof v.answer !== "boolean") {
              this.failedCalls++;
              return { answer: false, callSuccess: false, apiFailed: false, analysis, error: "answer is not a boolean", attempts: attempt + 1 };
            }
            return { answer: v.answer, callSuccess: true, apiFailed: false, analysis, attempts: attempt + 1 };
          }
        } catch (e) {
          lastError = e instanceof Error ? e.message : String(e);
        }
        if (attempt + 1 < attempts) await this.sleep(this.config.backoffMs?.(attempt) ?? Math.min(2 ** (attempt + 1), 30) * 1000);
      }
      this.failedCalls++;
      return { answer: false, callSuccess: false, apiFailed: true, error: lastError, attempts };
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Programmatic checks
// ---------------------------------------------------------------------------------------------

/** Deep subset: every key of `expected` is present in `actual` with a deep-equal value. */
export function containsArgs(actual: unknown, expected: Record<string, unknown>): boolean {
  if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return Object.keys(expected).length === 0;
  return Object.entries(expected).every(([k, v]) => deepEqual((actual as Record<string, unknown>)[k], v));
}

/** The user-visible reply of an assistant message (text after the think block, else all of it). */
export function userVisibleReply(content: string): string {
  const close = content.indexOf("</think>");
  return close >= 0 ? content.slice(close + 8).trim() : content.trim();
}

function valueAtPath(value: unknown, path: string[]): unknown {
  let v: unknown = value;
  for (const key of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** Replay every call in `messages` against a fresh environment and return its snapshot. */
export async function replaySnapshot(instance: TaskInstance, messages: ChatMessage[]): Promise<unknown> {
  if (!instance.environment) return undefined;
  const env: ToolEnvironment = await instance.environment.create();
  try {
    for (const m of messages) {
      for (const c of m.tool_calls ?? []) {
        try {
          await env.execute(c.function.name, c.function.arguments);
        } catch {
          // A throwing environment leaves the state as it is.
        }
      }
    }
    return await env.snapshot();
  } finally {
    await Promise.resolve(env.close?.()).catch(() => {});
  }
}

/** One replay of the calls in `messages`, with a snapshot taken at each of the (ascending) `endIndices`. */
export async function replaySnapshotsAt(instance: TaskInstance, messages: ChatMessage[], endIndices: number[]): Promise<unknown[]> {
  if (!instance.environment) return endIndices.map(() => undefined);
  const env: ToolEnvironment = await instance.environment.create();
  const out: unknown[] = [];
  let i = 0;
  try {
    for (const end of endIndices) {
      for (; i < end && i < messages.length; i++) {
        for (const c of messages[i].tool_calls ?? []) {
          try {
            await env.execute(c.function.name, c.function.arguments);
          } catch {
            // A throwing environment leaves the state as it is.
          }
        }
      }
      out.push(await env.snapshot());
    }
  } finally {
    await Promise.resolve(env.close?.()).catch(() => {});
  }
  return out;
}

export function evaluateProgrammatic(check: ProgrammaticCheck, step: ChatMessage, snapshot: () => Promise<unknown>): Promise<boolean> | boolean {
  switch (check.type) {
    case "tool_called":
      return (step.tool_calls ?? []).some((c) => {
        if (c.function.name !== check.name) return false;
        const args = safeParseJson(c.function.arguments);
        return args.ok && containsArgs(args.value, check.args ?? {});
      });
    case "reply_contains": {
      if (step.tool_calls?.length) return false;
      const reply = userVisibleReply(step.content).toLowerCase();
      return check.all.every((s) => reply.includes(s.toLowerCase()));
    }
    case "state_equals":
      return snapshot().then((s) => s !== undefined && deepEqual(valueAtPath(s, check.path), check.value));
  }
}

// ---------------------------------------------------------------------------------------------
// Turn judgement and aggregation
// ---------------------------------------------------------------------------------------------

export interface TurnJudgement {
  userTurnIndex: number;
  /** Σ over checklists of Σ weight·passed (0 when the turn ended in a tool failure). */
  reward: number;
  checklistScores: number[];
  stop: boolean;
  reason?: string;
  verdicts: ItemVerdict[];
  judgeCalls: number;
  judgeFailures: number;
  /** Episode-level scores only (TaskInstance.scoreEpisode): the instance's reward breakdown. */
  detail?: unknown;
  /**
   * Checklist turns: every item of every judged checklist passed and no tool failure zeroed the turn —
   * what checklist success is made of (outcome.ts). Absent on episode-level scores and failed judgements.
   */
  allPassed?: boolean;
}

export interface TurnContext {
  instance: TaskInstance;
  messages: ChatMessage[];
  /** Index of the current turn's user message. */
  turnStartIndex: number;
  userTurnIndex: number;
  lastToolFailed: boolean;
  maxChecklists: number;
}

interface Step {
  index: number;
  message: ChatMessage;
  messageIndex: number;
  /** Index one past the tool messages that follow this step. */
  endIndex: number;
  toolFailed: boolean;
}

function stepsOfTurn(messages: ChatMessage[], start: number): Step[] {
  const steps: Step[] = [];
  for (let i = start + 1; i < messages.length; i++) {
    if (messages[i].role !== "assistant") continue;
    let j = i + 1;
    let toolFailed = false;
    while (j < messages.length && messages[j].role === "tool") {
      if (isToolErrorContent(messages[j].content)) toolFailed = true;
      j++;
    }
    steps.push({ index: steps.length, message: messages[i], messageIndex: i, endIndex: j, toolFailed });
  }
  return steps;
}

/** Judge one finished user turn. Never throws for judge failures (they are recorded). */
export async function judgeTurn(ctx: TurnContext, judge: ChecklistJudge): Promise<TurnJudgement> {
  const checklists = ctx.instance.checklists.slice(0, ctx.maxChecklists);
  const steps = stepsOfTurn(ctx.messages, ctx.turnStartIndex);
  // Serialising the conversation is only needed for LLM-judged items; built lazily (below, inline:
  // under tsx a named closure per judgement and per step costs a defineProperty of its name).
  let previousText: string | undefined;
  // World snapshots after each step, computed in ONE replay of the episode's calls when first needed.
  let allSnapshots: Promise<unknown[]> | undefined;

  // Synchronous verdicts are stored directly; only judge calls and state replays are awaited.
  const tasks: (ItemVerdict | Promise<ItemVerdict>)[] = [];
  let pending = false;
  checklists.forEach((checklist, c) => {
    const items = checklist[ctx.userTurnIndex] ?? [];
    for (const s of steps) {
      let currentText: string | undefined;
      for (const item of items) {
        const base = {
          checklist: c,
          userTurn: ctx.userTurnIndex,
          step: s.index,
          itemId: item.id,
          question: item.question,
          weight: Number(item.weight) || 0,
          required: item.required_for_next_turn === true,
        };
        if ((item.focus_on === "assistant.tool_calls" || item.focus_on === "tool.content") && s.toolFailed) {
          tasks.push({ ...base, passed: false, source: "tool_error" });
        } else if (item.check) {
          const result = evaluateProgrammatic(item.check, s.message, () =>
            (allSnapshots ??= replaySnapshotsAt(ctx.instance, ctx.messages, steps.map((x) => x.endIndex))).then((list) => list[s.index]),
          );
          if (typeof result === "boolean") tasks.push({ ...base, passed: result, source: "programmatic" });
          else {
            pending = true;
            tasks.push(
              result.then(
                (passed): ItemVerdict => ({ ...base, passed, source: "programmatic" }),
                (e): ItemVerdict => ({ ...base, passed: false, source: "programmatic", error: String(e) }),
              ),
            );
          }
        } else {
          pending = true;
          previousText ??= serializeForJudge(ctx.messages.slice(0, ctx.turnStartIndex));
          // As the reference: from the turn's user message through this step and the tool messages after it
          // (so the current turn is labelled "# Turn: 0" and its steps count from 0).
          currentText ??= serializeForJudge(ctx.messages.slice(ctx.turnStartIndex, s.endIndex));
          const prompt = buildJudgePrompt(previousText, currentText, item);
          tasks.push(
            judge.check(prompt).then(
              (o): ItemVerdict => ({
                ...base,
                passed: o.answer,
                source: "judge",
                analysis: o.analysis,
                callSuccess: o.callSuccess,
                apiFailed: o.apiFailed,
                error: o.error,
              }),
            ),
          );
        }
      }
    }
  });
  const verdicts: ItemVerdict[] = pending ? await Promise.all(tasks) : (tasks as ItemVerdict[]);

  const checklistScores: number[] = [];
  const stopVotes: boolean[] = [];
  let everyItemPassed = true;
  checklists.forEach((checklist, c) => {
    const items = checklist[ctx.userTurnIndex] ?? [];
    let score = 0;
    let requiredFailed = false;
    for (const item of items) {
      const passed = verdicts.some((v) => v.checklist === c && v.itemId === item.id && v.passed);
      score += (Number(item.weight) || 0) * (passed ? 1 : 0);
      if (item.required_for_next_turn && !passed) requiredFailed = true;
      if (!passed) everyItemPassed = false;
    }
    checklistScores.push(Math.round(score * 1e8) / 1e8);
    stopVotes.push(requiredFailed);
  });

  const judgeCalls = verdicts.filter((v) => v.source === "judge").length;
  const judgeFailures = verdicts.filter((v) => v.source === "judge" && !v.callSuccess).length;
  const reward = ctx.lastToolFailed ? 0 : checklistScores.reduce((a, b) => a + b, 0);
  const lastTurn = ctx.userTurnIndex + 1 >= (ctx.instance.checklists[0]?.length ?? 0);
  const majorityStop = stopVotes.filter(Boolean).length > stopVotes.length / 2;
  let reason: string | undefined;
  if (judgeFailures > 0) reason = Termination.judgeFailed;
  else if (majorityStop) reason = Termination.judgeRequiredFailed;
  else if (lastTurn) reason = Termination.checklistComplete;
  const allPassed = everyItemPassed && !ctx.lastToolFailed && judgeFailures === 0;
  return { userTurnIndex: ctx.userTurnIndex, reward, checklistScores, stop: reason !== undefined, reason, verdicts, judgeCalls, judgeFailures, allPassed };
}

/** R = E / numChecklists / numChecklistTurns (§3.3). */
export function normalizedEpisodeReward(episodeReward: number, numChecklists: number, numChecklistTurns: number): number {
  if (numChecklists <= 0 || numChecklistTurns <= 0) return 0;
  return episodeReward / numChecklists / numChecklistTurns;
}

/** Row score with the invalid-action penalty (§3.3). */
export function rowScore(normalizedReward: number, valid: boolean, penalty: number): number {
  return normalizedReward - (valid ? 0 : penalty);
}

/**
 * Grounded rehearsal (an EnvACE Studio option, not in the reference): under shadow execution a rehearse
 * row's reward mixes the trajectory reward with that row's own fidelity to the real response,
 * `(1 − weight) · R + weight · fidelity`. With weight 0, or for a row with no real response to compare
 * against, it is R unchanged, as in the method.
 */
export function groundedRehearseReward(normalizedReward: number, fidelity: number | undefined, weight: number): number {
  if (weight <= 0 || fidelity === undefined || !Number.isFinite(fidelity)) return normalizedReward;
  return (1 - weight) * normalizedReward + weight * fidelity;
}
