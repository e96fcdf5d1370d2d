/**
 * One tau2 retail episode (spec §9), pure apart from the injected clients: the agent function, the
 * user simulator (any ChatClient) and, optionally, the rehearsal-fidelity probe, which asks the policy
 * to predict each tool response BEFORE the real call runs.
 */
import type { ChatClient, ChatMessage, GenerateRequest, PolicyClient, SamplingOptions, ToolSchema } from "../../engine/io";
import { RetailEnv } from "./env";
import type { RetailDb } from "./model";
import { agentSystemPrompt, findStopToken, GREETING, retailToolSchemas, userSystemPrompt, type StopToken } from "./prompts";
import { deepEqual, scoreTau2Episode, type RewardBreakdown } from "./scoring";
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
  | "user_stalled" // the simulator returned blank text
  | "user_error" // the simulator call failed
  | "agent_invalid" // blank text and no tool call (the original aborts)
  | "agent_error"; // the agent function failed

export type Tau2Message =
  | { turn: number; role: "assistant"; content: string; toolCalls?: AgentToolCall[] }
  | { turn: number; role: "user"; content: string }
  | { turn: number; role: "tool"; callId: string; content: string; error: boolean };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface FidelityAgreement {
  /** Parsed JSON equal (raw text equal when either side is not JSON). */
  exact: boolean;
  /** Jaccard overlap of the flattened key paths of the two JSON values (1 when both are non-JSON and equal). */
  keyAgreement: number;
  /** Both or neither look like a tool error. */
  errorFlag: boolean;
}

export interface ToolCallRecord {
  step: number;
  callId: string;
  name: string;
  arguments: unknown;
  response: string;
  error: boolean;
  rehearsal?: { predicted: string | null; probeError?: string; agreement?: FidelityAgreement };
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

export interface FidelitySummary {
  probed: number;
  probeFailures: number;
  exactRate: number;
  meanKeyAgreement: number;
  errorFlagRate: number;
}

export function summarizeFidelity(calls: ToolCallRecord[]): FidelitySummary | undefined {
  const probed = calls.filter((c) => c.rehearsal);
  if (probed.length === 0) return undefined;
  const scored = probed.map((c) => c.rehearsal!.agreement).filter((a): a is FidelityAgreement => a !== undefined);
  const mean = (f: (a: FidelityAgreement) => number) => (scored.length === 0 ? 0 : scored.reduce((s, a) => s + f(a), 0) / scored.length);
  return {
    probed: probed.length,
    probeFailures: probed.length - scored.length,
    exactRate: mean((a) => (a.exact ? 1 : 0)),
    meanKeyAgreement: mean((a) => a.keyAgreement),
    errorFlagRate: mean((a) => (a.errorFlag ? 1 : 0)),
  };
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
  fidelityProbe?: RehearseFn;
  signal?: AbortSignal;
}

const looksLikeError = (text: string) => /^\s*error\b/i.test(text);

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function keyPaths(value: unknown, prefix = "", out = new Set<string>()): Set<string> {
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const p = prefix ? `${prefix}.${Array.isArray(value) ? "[]" : k}` : Array.isArray(value) ? "[]" : k;
      out.add(p);
      keyPaths(v, p, out);
    }
  }
  return out;
}

/** How well a rehearsed tool response agrees with the real one. */
export function fidelityAgreement(predicted: string, real: string, realError: boolean): FidelityAgreement {
  const p = parseJson(predicted.trim());
  const r = parseJson(real);
  const exact = p.ok && r.ok ? deepEqual(p.value, r.value) : predicted.trim() === real.trim();
  let keyAgreement: number;
  if (p.ok && r.ok) {
    const a = keyPaths(p.value);
    const b = keyPaths(r.value);
    const union = new Set([...a, ...b]);
    keyAgreement = union.size === 0 ? (exact ? 1 : 0) : [...a].filter((k) => b.has(k)).length / union.size;
  } else keyAgreement = exact ? 1 : 0;
  return { exact, keyAgreement, errorFlag: looksLikeError(predicted) === realError };
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
  return { role: "tool", content, name: call.name, tool_call_id: call.id } as ChatMessage;
}

const STOP_REASON: Record<StopToken, TerminationReason> = {
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

/**
 * Read tool calls from model text in the Hermes/Qwen format: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`
 * blocks; the text before the first block is the message. A block that is not valid JSON becomes a call to
 * the unknown tool `invalid_tool_call` so the agent sees an error instead of the episode aborting.
 */
export function parseHermesToolCalls(text: string, idPrefix = "call"): AgentTurn {
  const blocks = [...text.matchAll(/<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g)];
  if (blocks.length === 0) return { text: text.trim(), toolCalls: [] };
  const toolCalls = blocks.map((m, i): AgentToolCall => {
    const id = `${idPrefix}_${i}`;
    try {
      const parsed = JSON.parse(m[1]) as { name?: unknown; arguments?: unknown };
      const args = typeof parsed.arguments === "string" ? JSON.parse(parsed.arguments) : parsed.arguments ?? {};
      return { id, name: typeof parsed.name === "string" ? parsed.name : "invalid_tool_call", arguments: args };
    } catch {
      return { id, name: "invalid_tool_call", arguments: {} };
    }
  });
  return { text: text.slice(0, blocks[0].index).trim(), toolCalls };
}

/** An agent that samples the act role of a PolicyClient and parses its text with `parse`. */
export function policyClientAgent(
  policy: PolicyClient,
  sampling: SamplingOptions,
  parse: (text: string, idPrefix: string) => AgentTurn = parseHermesToolCalls,
): Tau2AgentFn {
  let turns = 0;
  return async ({ messages, tools }) => {
    const req: GenerateRequest = { role: "act", messages, tools, sampling };
    const result = await policy.generate(req);
    return parse(result.text, `call_${turns++}`);
  };
}

/**
 * An agent over a plain ChatClient: the tool schemas go into the system message (the client has no
 * tools parameter) and tool calls are read back with `parse`.
 */
export function chatClientAgent(
  client: ChatClient,
  opts: { temperature?: number; maxTokens?: number } = {},
  parse: (text: string, idPrefix: string) => AgentTurn = parseHermesToolCalls,
): Tau2AgentFn {
  let turns = 0;
  return async ({ messages, tools }) => {
    const toolText =
      "\n\n# Tools\nYou may call these functions. To call one, write\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>\n" +
      `<tools>\n${tools.map((t) => JSON.stringify(t)).join("\n")}\n</tools>`;
    const [system, ...rest] = messages;
    const flattened = rest.map((m): ChatMessage =>
      m.role === "tool"
        ? { role: "user", content: `<tool_response>\n${m.content}\n</tool_response>` }
        : m.tool_calls
          ? { role: "assistant", content: [m.content, ...m.tool_calls.map((c) => `<tool_call>\n{"name": ${JSON.stringify(c.function.name)}, "arguments": ${c.function.arguments}}\n</tool_call>`)].filter(Boolean).join("\n") }
          : m,
    );
    const { text } = await client.complete({ messages: [{ role: "system", content: system.content + toolText }, ...flattened], temperature: opts.temperature, maxTokens: opts.maxTokens });
    return parse(text, `call_${turns++}`);
  };
}

/** A fidelity probe that asks the policy's rehearse role to write the response of `call`. */
export function policyClientRehearsal(policy: PolicyClient, sampling: SamplingOptions): RehearseFn {
  return async ({ messages, tools, call }) => {
    const instruction =
      `You are the environment behind these tools. Write exactly the text the tool ${JSON.stringify(call.name)} returns for ` +
      `the arguments ${JSON.stringify(call.arguments)}, given everything above. Output only the tool response.`;
    const result = await policy.generate({ role: "rehearse", messages: [...messages, { role: "user", content: instruction }], tools, sampling });
    return result.text.trim();
  };
}
