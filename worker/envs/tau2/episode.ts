/**
 * One tau2 retail episode (spec §9), pure apart from the injected clients: the agent function, the
 * user simulator (any ChatClient) and, optionally, the rehearsal-fidelity probe, which asks the policy
 * to predict each tool response BEFORE the real call runs.
 */
import { compareResponses, isErrorValue, summarizeFidelity as summarizeEngineFidelity, type Fidelity, type FidelitySummary as EngineFidelitySummary } from "../../engine/fidelity";
import type { ChatClient, ChatMessage, GenerateRequest, PolicyClient, SamplingOptions, ToolSchema } from "../../engine/io";
import { parseActOutput, parseRehearseOutput, safeParseJson, stripThink } from "../../engine/parsers";
import { buildRehearsePrompt, renderToolCalls } from "../../engine/prompts";
import { RetailEnv } from "./env";
import type { RetailDb } from "./model";
import { agentSystemPrompt, findStopToken, GREETING, retailToolSchemas, userSystemPrompt, type StopToken } from "./prompts";
import { scoreTau2Episode, type RewardBreakdown } from "./scoring";
import type { Tau2Task } from "./tasks";

export interface AgentToolCall {
  id: string;
  name: string;
  /** Parsed JSON arguments (normally an object; anything else gets the tool's call error). */
  arguments: unknown;
}

export interface AgentTurn {
  text: string;
  toolCalls: AgentToolCall[];
  /** The model's full raw output, when there is one (kept for the rehearse prompt). */
  raw?: string;
  /** The output could not be parsed (an engine act error code): the episode ends as `agent_invalid`. */
  invalid?: { code: string; detail?: string };
}

/** The acting policy: given its LLM context and the tools, produce one message. */
export type Tau2AgentFn = (input: { messages: ChatMessage[]; tools: ToolSchema[] }) => Promise<AgentTurn>;

/** The rehearse role: predict the text the environment will return for `call`. */
export type RehearseFn = (input: { messages: ChatMessage[]; tools: ToolSchema[]; call: AgentToolCall }) => Promise<string>;

export type TerminationReason =
  | "user_stop" // ###STOP###
  | "transfer" // ###TRANSFER###
  | "out_of_scope" // ###OUT-OF-SCOPE###
  | "max_steps"
  | "user_stalled" // the simulator returned blank text or repeated itself three times in a row
  | "user_garbage" // the simulator returned an implausibly long message
  | "user_error" // the simulator call failed
  | "agent_invalid" // blank text and no tool call (the original aborts)
  | "agent_error"; // the agent function failed

export type Tau2Message =
  | { turn: number; role: "assistant"; content: string; toolCalls?: AgentToolCall[] }
  | { turn: number; role: "user"; content: string }
  | { turn: number; role: "tool"; callId: string; content: string; error: boolean };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * Rehearsed-vs-real agreement: the engine's measure (exact JSON match, leaf key/value agreement,
 * score), with `errorAgreement` judged by tau2's own error flag (`Error: …` texts are not JSON).
 */
export type FidelityAgreement = Fidelity;

export interface ToolCallRecord {
  step: number;
  callId: string;
  name: string;
  arguments: unknown;
  response: string;
  error: boolean;
  rehearsal?: { predicted: string | null; probeError?: string; agreement?: Fidelity };
}

export interface Tau2Trajectory {
  taskId: string;
  messages: Tau2Message[];
  toolCalls: ToolCallRecord[];
  steps: number;
  termination: { reason: TerminationReason; detail?: string };
  reward: RewardBreakdown;
  finalDbHash: string;
  /** Present when the fidelity probe ran: averages over the calls whose rehearsal succeeded. */
  fidelity?: FidelitySummary;
}

export interface FidelitySummary extends EngineFidelitySummary {
  probed: number;
  probeFailures: number;
}

export function summarizeFidelity(calls: ToolCallRecord[]): FidelitySummary | undefined {
  const probed = calls.filter((c) => c.rehearsal);
  if (probed.length === 0) return undefined;
  const scored = probed.map((c) => c.rehearsal!.agreement).filter((a): a is Fidelity => a !== undefined);
  const base = summarizeEngineFidelity(scored) ?? { comparisons: 0, exactRate: 0, meanKeyAgreement: 0, errorAgreementRate: 0, meanScore: 0 };
  return { ...base, probed: probed.length, probeFailures: probed.length - scored.length };
}

export interface RunTau2EpisodeOptions {
  task: Tau2Task;
  /** The pristine DB (parsed once); the episode runs on its own copy. */
  db: RetailDb;
  policyText: string;
  userGuidelines: string;
  agent: Tau2AgentFn;
  userSim: ChatClient;
  /** spec default for the CLI is 200 */
  maxSteps?: number;
  userTemperature?: number;
  /** A user message longer than this ends the episode as `user_garbage` (default 8000 characters). */
  maxUserChars?: number;
  fidelityProbe?: RehearseFn;
  signal?: AbortSignal;
}

/** A predicted response "is an error" when it reads like a tau2 error text or an engine error object. */
function predictsError(predicted: string): boolean {
  if (/^\s*error\b/i.test(predicted)) return true;
  const parsed = safeParseJson(predicted);
  return parsed.ok && isErrorValue(parsed.value);
}

/** How well a rehearsed tool response agrees with the real one. */
export function fidelityAgreement(predicted: string, real: string, realError: boolean): Fidelity {
  return { ...compareResponses(predicted.trim(), real), errorAgreement: predictsError(predicted) === realError };
}

function toolCallMessage(turn: AgentTurn): ChatMessage {
  const msg: ChatMessage = { role: "assistant", content: turn.text };
  if (turn.toolCalls.length > 0) {
    msg.tool_calls = turn.toolCalls.map((c) => ({
      id: c.id,
      type: "function" as const,
      function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments) },
    }));
  }
  return msg;
}

/** A tool-role message; `tool_call_id` rides along for OpenAI-compatible clients that need it. */
function toolResultMessage(call: AgentToolCall, content: string): ChatMessage {
  return { role: "tool", content, name: call.name, tool_call_id: call.id };
}

/** Termination reason of each stop token (spec §8). */
export const STOP_REASON: Record<StopToken, TerminationReason> = {
  "###STOP###": "user_stop",
  "###TRANSFER###": "transfer",
  "###OUT-OF-SCOPE###": "out_of_scope",
};

/** Run one half-duplex episode and score it with v0.2.0 rules. */
export async function runTau2Episode(opts: RunTau2EpisodeOptions): Promise<Tau2Trajectory> {
  const { task, agent, userSim } = opts;
  const maxSteps = opts.maxSteps ?? 200;
  const tools = retailToolSchemas();
  const env = new RetailEnv(opts.db);
  const messages: Tau2Message[] = [{ turn: 0, role: "assistant", content: GREETING }];
  const toolCalls: ToolCallRecord[] = [];
  const agentContext: ChatMessage[] = [{ role: "system", content: agentSystemPrompt(opts.policyText) }];
  const userContext: ChatMessage[] = [
    { role: "system", content: userSystemPrompt(opts.userGuidelines, task) },
    { role: "user", content: GREETING },
  ];
  const push = (m: DistributiveOmit<Tau2Message, "turn">) => messages.push({ ...m, turn: messages.length } as Tau2Message);

  let next: "user" | "agent" | "env" = "user";
  let pendingCalls: AgentToolCall[] = [];
  let steps = 0;
  let termination: Tau2Trajectory["termination"] | undefined;

  while (!termination) {
    if (opts.signal?.aborted) throw new Error("episode aborted");
    let stopped: TerminationReason | undefined;
    if (next === "user") {
      let text: string;
      try {
        text = (await userSim.complete({ messages: userContext, temperature: opts.userTemperature ?? 0, signal: opts.signal })).text;
      } catch (err) {
        termination = { reason: "user_error", detail: (err as Error).message };
        break;
      }
      if (text.trim() === "") {
        termination = { reason: "user_stalled", detail: "the user simulator returned an empty message" };
        break;
      }
      if (text.length > (opts.maxUserChars ?? 8000)) {
        termination = { reason: "user_garbage", detail: `the user simulator returned ${text.length} characters` };
        break;
      }
      const earlierUser = messages.filter((m) => m.role === "user").slice(-2);
      if (earlierUser.length === 2 && earlierUser.every((m) => m.content.trim() === text.trim()) && !findStopToken(text)) {
        termination = { reason: "user_stalled", detail: "the user simulator repeated the same message three times" };
        break;
      }
      push({ role: "user", content: text });
      userContext.push({ role: "assistant", content: text });
      agentContext.push({ role: "user", content: text });
      const token = findStopToken(text);
      if (token) stopped = STOP_REASON[token];
      next = "agent";
    } else if (next === "agent") {
      let turn: AgentTurn;
      try {
        turn = await agent({ messages: [...agentContext], tools });
      } catch (err) {
        termination = { reason: "agent_error", detail: (err as Error).message };
        break;
      }
      if (turn.invalid) {
        termination = { reason: "agent_invalid", detail: `${turn.invalid.code}${turn.invalid.detail ? ": " + turn.invalid.detail : ""}` };
        break;
      }
      if (turn.text.trim() === "" && turn.toolCalls.length === 0) {
        termination = { reason: "agent_invalid", detail: "the agent produced neither text nor a tool call" };
        break;
      }
      push({ role: "assistant", content: turn.text, ...(turn.toolCalls.length > 0 ? { toolCalls: turn.toolCalls } : {}) });
      agentContext.push(toolCallMessage(turn));
      if (turn.toolCalls.length > 0) {
        pendingCalls = turn.toolCalls;
        next = "env";
      } else {
        userContext.push({ role: "user", content: turn.text });
        next = "user";
      }
    } else {
      for (const call of pendingCalls) {
        let rehearsal: ToolCallRecord["rehearsal"];
        if (opts.fidelityProbe) {
          try {
            const predicted = await opts.fidelityProbe({ messages: [...agentContext], tools, call });
            rehearsal = { predicted };
          } catch (err) {
            rehearsal = { predicted: null, probeError: (err as Error).message };
          }
        }
        const result = env.call(call.name, call.arguments);
        if (rehearsal?.predicted != null) rehearsal.agreement = fidelityAgreement(rehearsal.predicted, result.content, result.error);
        toolCalls.push({ step: steps, callId: call.id, name: call.name, arguments: call.arguments, response: result.content, error: result.error, ...(rehearsal ? { rehearsal } : {}) });
        push({ role: "tool", callId: call.id, content: result.content, error: result.error });
        agentContext.push(toolResultMessage(call, result.content));
      }
      pendingCalls = [];
      next = "agent";
    }
    steps++;
    if (stopped) termination = { reason: stopped };
    if (steps >= maxSteps) termination = { reason: "max_steps" };
  }

  const reason = termination.reason;
  const premature = !(reason === "user_stop" || reason === "transfer" || reason === "out_of_scope");
  const reward = scoreTau2Episode(task, opts.db, {
    toolCalls: toolCalls.map((c) => ({ name: c.name, arguments: c.arguments, recordedContent: c.response })),
    assistantTexts: messages.filter((m) => m.role === "assistant").map((m) => m.content),
    premature,
  });
  const fidelity = summarizeFidelity(toolCalls);
  return { taskId: task.id, messages, toolCalls, steps, termination, reward, finalDbHash: env.hash(), ...(fidelity ? { fidelity } : {}) };
}

// ---- agent and probe adapters over the engine's clients ----

/** Read the act role's text with the engine's parser (newline-delimited `<tool_call>` blocks). */
export function parseAgentText(text: string, idPrefix = "call"): AgentTurn {
  const parsed = parseActOutput(text);
  if (parsed.kind === "reply") return { text: parsed.text, toolCalls: [], raw: text };
  if (parsed.kind === "error") return { text: "", toolCalls: [], raw: text, invalid: { code: parsed.code, detail: parsed.payload.detail } };
  return {
    text: parsed.content,
    toolCalls: parsed.calls.map((c, i) => ({ id: `${idPrefix}_${i}`, name: c.name, arguments: c.arguments })),
    raw: text,
  };
}

/** An agent that samples the act role of a PolicyClient and parses its text with `parse`. */
export function policyClientAgent(
  policy: PolicyClient,
  sampling: SamplingOptions,
  parse: (text: string, idPrefix: string) => AgentTurn = parseAgentText,
): Tau2AgentFn {
  let turns = 0;
  return async ({ messages, tools }) => {
    const req: GenerateRequest = { role: "act", messages, tools, sampling };
    const result = await policy.generate(req);
    return parse(result.text, `call_${turns++}`);
  };
}

/**
 * A fidelity probe that asks the policy's rehearse role, with the engine's rehearse prompt, to write the
 * response of `call` before it runs. A plain-text prediction (tau2 returns ids and `Error: …` as text)
 * is taken from inside <execution_result> when it is not a JSON object.
 */
export function policyClientRehearsal(policy: PolicyClient, sampling: SamplingOptions): RehearseFn {
  return async ({ messages, tools, call }) => {
    const lastAssistant = messages.map((m) => m.role).lastIndexOf("assistant");
    const caller = messages[lastAssistant];
    const prompt = buildRehearsePrompt({
      call: { name: call.name, argumentsJson: JSON.stringify(call.arguments ?? {}) },
      tools,
      history: messages.slice(0, lastAssistant),
      rawCallerMessage: caller ? `${caller.content}${caller.tool_calls ? renderToolCalls(caller.tool_calls) : ""}` : "",
    });
    const result = await policy.generate({ role: "rehearse", messages: prompt, sampling });
    const parsed = parseRehearseOutput(result.text);
    if (parsed.ok) return parsed.content;
    const inner = /<execution_result>\s*([\s\S]*?)\s*<\/execution_result>/.exec(stripThink(result.text));
    if (!inner) return parsed.content;
    const literal = safeParseJson(inner[1]);
    return literal.ok && typeof literal.value === "string" ? literal.value : inner[1];
  };
}
