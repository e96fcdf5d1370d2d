/**
 * Prompt builders for the rehearse role (envace-method.md §1.6, §2.1).
 *
 * `buildRehearsePrompt` follows the reference's structure: a system prompt describing a strict
 * validate-then-execute tool simulator (our own wording), and a user message of data sections
 * (candidate tools, few-shot reference calls, conversation history, the caller's raw message, the call
 * to execute), each switchable. The user message's section headers and labels are the reference's,
 * verbatim (simulate_core/_builders.py), so a checkpoint trained with the reference sees the prompts it
 * was trained on and rehearsal results stay comparable. `buildCompactRehearsePrompt` is a short variant
 * for a tiny character-level model.
 */
import type { ChatMessage, ToolSchema } from "../../contracts/chat";
import type { FewShotExample } from "../../contracts/tasks";
import { pyJsonDumps } from "../../lib/python/json";
import { pyDumps, pyLoads, sanitizeText } from "./parsers";

export interface RehearseCall {
  name: string;
  /** Arguments as the JSON string stored in the assistant message. */
  argumentsJson: string;
}

export interface RehearsePromptInput {
  call: RehearseCall;
  tools: ToolSchema[];
  /** The conversation before the assistant message that made this call. */
  history: ChatMessage[];
  /** The caller's full raw output (reasoning included). */
  rawCallerMessage: string;
  fewShot?: FewShotExample[];
}

export interface RehearsePromptOptions {
  injectCandidateTools: boolean;
  injectFewShot: boolean;
  injectHistory: boolean;
  injectRawCallerMessage: boolean;
  /** Append the Qwen3 `/think` switch (reference default: on). */
  appendThinkSwitch: boolean;
}

export const defaultRehearsePromptOptions: RehearsePromptOptions = {
  injectCandidateTools: true,
  injectFewShot: true,
  injectHistory: true,
  injectRawCallerMessage: true,
  appendThinkSwitch: true,
};

export const REHEARSE_SYSTEM_PROMPT = `You act as the runtime of a set of tools. An AI agent has just issued a tool call; you first check that the call is legal and then return exactly what the tool would return.

You receive: the tools allowed for this task, example calls with their real results (these may be missing), the conversation so far, the agent's latest message including its tool_call markup, and the name, schema and parsed arguments of the call to execute.

Work through these checks in order and stop at the first that fails:
1. Markup: the agent's message must wrap the call as a newline, <tool_call>, newline, a JSON object with "name" and "arguments", newline, </tool_call>. Otherwise return code INVALID_TOOL_CALL_FORMAT.
2. Allowed tool: the name must be one of the allowed tools. Otherwise return code TOOL_NOT_AVAILABLE with a message saying the tool does not exist and only the listed tools may be used.
3. Arguments: every required argument is present, primitive types match the schema and enum values are respected. Otherwise return code INVALID_PARAMETERS and list the problems in details.errors.
4. Execute: if an example call with matching or near-matching arguments exists, return its result; otherwise produce a realistic result that fits the schema and agrees with every fact in the examples and the conversation. Silently repair obvious type mistakes you notice in the examples.

An error is written as {"error_tool_call": {"code": "...", "message": "...", "details": {...}}}.

Output: after any reasoning, write a newline, <execution_result>, newline, one non-empty JSON object or JSON array, newline, </execution_result>. Write nothing else: no prose, no markdown fences, no hints or advice, and never mention the examples. You are a silent function.`;

/** Compact JSON with a fallback so prompt building never throws (the compact prompt for tiny models). */
function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return "null";
  }
}

/**
 * Data inside the full rehearse and simulator prompts is written as the reference writes it:
 * `json.dumps(value, ensure_ascii=True, indent=0)` (one item per line, no indentation).
 */
function pyJson(value: unknown): string {
  try {
    return pyJsonDumps(value, { indent: 0 });
  } catch {
    return "null";
  }
}

/** Derive few-shot pairs from a reference conversation: each assistant call with the tool message that answers it. */
export function fewShotFromReference(reference: ChatMessage[] | undefined): FewShotExample[] {
  if (!reference) return [];
  const out: FewShotExample[] = [];
  for (let i = 0; i < reference.length; i++) {
    const m = reference[i];
    if (m.role !== "assistant" || !m.tool_calls?.length) continue;
    let j = i + 1;
    for (const call of m.tool_calls) {
      const answer = reference[j];
      if (!answer || answer.role !== "tool") break;
      out.push({ name: call.function.name, argumentsJson: call.function.arguments, result: answer.content });
      j++;
    }
  }
  return out;
}

/** Python json.loads of stored arguments (int/float and key order kept); `{}` when they are not JSON, as the reference. */
function parsedArgs(argumentsJson: string): unknown {
  const parsed = pyLoads(argumentsJson);
  return parsed.ok ? parsed.value : new Map();
}

/**
 * Render tool calls inline as the reference's history serialiser does: the stored name and arguments
 * string dropped verbatim into `{"name": "<name>", "arguments": <arguments>}`.
 */
export function renderToolCalls(calls: NonNullable<ChatMessage["tool_calls"]>): string {
  return calls.map((c) => `\n<tool_call>\n{"name": "${c.function.name}", "arguments": ${c.function.arguments}}\n</tool_call>`).join("");
}

/**
 * History as the reference serialises it: system skipped; contents trimmed; `User: …`, `Assistant: …`
 * (calls inline) and `Tool[<name>]: …` entries, empty ones left out, separated by a blank line.
 */
export function serializeHistory(history: ChatMessage[]): string {
  const entries: string[] = [];
  for (const m of history) {
    const content = (m.content ?? "").trim();
    if (m.role === "system") continue;
    if (m.role === "user") {
      if (content) entries.push(`User: ${content}`);
    } else if (m.role === "assistant") {
      const text = content + (m.tool_calls?.length ? renderToolCalls(m.tool_calls) : "");
      if (text) entries.push(`Assistant: ${text}`);
    } else if (content) entries.push(`${m.name ? `Tool[${m.name}]` : "Tool"}: ${content}`);
  }
  return entries.length ? entries.join("\n\n") : "No conversation history";
}

/** The reference's few-shot header; alone, with ` <unavailable>`, when the task has no reference calls. */
export const FEW_SHOT_HEADER = "Previous tool calls and results (few-shot):";

/**
 * The few-shot block as the reference builds it (`build_few_shot_examples_lines`): the header line, then
 * one entry per reference call, grouped by tool name in the order each name first appears (the
 * reference keeps a `{tool_name: [(args, result), …]}` map), each entry `Tool name:`, `Tool arguments:`
 * (json.dumps indent 0), `Tool execution result:` (the stored text) and a trailing newline; lines joined
 * by newlines.
 */
export function serializeFewShot(examples: FewShotExample[]): string {
  if (examples.length === 0) return `${FEW_SHOT_HEADER} <unavailable>`;
  const byTool = new Map<string, FewShotExample[]>();
  for (const e of examples) byTool.set(e.name, [...(byTool.get(e.name) ?? []), e]);
  const lines = [FEW_SHOT_HEADER];
  for (const [name, pairs] of byTool) {
    for (const e of pairs) {
      lines.push(`Tool name:\n${name}\nTool arguments:\n${pyJson(parsedArgs(e.argumentsJson))}\nTool execution result:\n${e.result}\n`);
    }
  }
  return lines.join("\n");
}

/** The full rehearse prompt: [system, user]. */
export function buildRehearsePrompt(input: RehearsePromptInput, options: Partial<RehearsePromptOptions> = {}): ChatMessage[] {
  const o = { ...defaultRehearsePromptOptions, ...options };
  const schema = input.tools.find((t) => t.function.name === input.call.name);
  const sections: string[] = [];
  // As the reference: an empty tool list or an empty caller message leaves its section out.
  if (o.injectCandidateTools && input.tools.length > 0) sections.push(`Candidate tools (whitelist for this sample):\n${pyJson(input.tools)}`);
  if (o.injectFewShot) sections.push(serializeFewShot(input.fewShot ?? []));
  if (o.injectHistory) sections.push(`Current conversation history:\n${serializeHistory(input.history)}`);
  if (o.injectRawCallerMessage && input.rawCallerMessage) sections.push(`RL model's latest response:\n${input.rawCallerMessage}`);
  sections.push(
    [
      "Current tool to simulate:",
      `- name: ${input.call.name}`,
      `- input schema (JSON Schema):\n${schema ? pyJson(schema) : "<schema unavailable>"}`,
      `- arguments (JSON, parsed from caller's tool_call):\n${pyJson(parsedArgs(input.call.argumentsJson))}`,
    ].join("\n"),
  );
  let user = sections.join("\n\n");
  if (o.appendThinkSwitch) user += "\n\n/think";
  return [
    { role: "system", content: REHEARSE_SYSTEM_PROMPT },
    { role: "user", content: user },
  ];
}

// ---------------------------------------------------------------------------------------------
// Compact variant for a tiny character-level model
// ---------------------------------------------------------------------------------------------

export interface CompactRehearsePromptOptions {
  /** Tool names only. */
  injectCandidateTools: boolean;
  /** Earlier calls of this episode with their responses, one per line. */
  injectHistory: boolean;
  /** Reference examples (off by default: they would leak the answer). */
  injectFewShot: boolean;
  /** The caller's raw message (off by default: long and rarely needed by a tiny model). */
  injectRawCallerMessage: boolean;
}

export const defaultCompactRehearsePromptOptions: CompactRehearsePromptOptions = {
  injectCandidateTools: true,
  injectHistory: true,
  injectFewShot: false,
  injectRawCallerMessage: false,
};

export const COMPACT_REHEARSE_SYSTEM_PROMPT = "Be the tool. Reply <execution_result> JSON.";

/** Earlier tool calls of the episode paired with their tool messages, as `name args -> result` lines. */
export function compactCallHistory(history: ChatMessage[]): string[] {
  const lines: string[] = [];
  for (let i = 0; i < history.length; i++) {
    const m = history[i];
    if (m.role !== "assistant" || !m.tool_calls?.length) continue;
    let j = i + 1;
    for (const c of m.tool_calls) {
      const answer = history[j];
      if (!answer || answer.role !== "tool") break;
      // Arguments are already compact JSON (re-serialised by the act parser); used as they are.
      lines.push(`${c.function.name} ${c.function.arguments} -> ${answer.content}`);
      j++;
    }
  }
  return lines;
}

/** The compact rehearse prompt: [system, user], a few hundred characters for short episodes. */
export function buildCompactRehearsePrompt(
  input: RehearsePromptInput,
  options: Partial<CompactRehearsePromptOptions> = {},
): ChatMessage[] {
  const o = { ...defaultCompactRehearsePromptOptions, ...options };
  const lines: string[] = [];
  if (o.injectCandidateTools) lines.push(`tools: ${input.tools.map((t) => t.function.name).join(",")}`);
  if (o.injectFewShot) {
    for (const e of input.fewShot ?? []) lines.push(`eg ${e.name} ${e.argumentsJson} -> ${e.result}`);
  }
  if (o.injectHistory) {
    const past = compactCallHistory(input.history);
    lines.push(past.length ? `past:\n${past.join("\n")}` : "past: none");
  }
  if (o.injectRawCallerMessage) lines.push(`agent: ${input.rawCallerMessage}`);
  lines.push(`call: ${input.call.name} ${input.call.argumentsJson}`);
  return [
    { role: "system", content: COMPACT_REHEARSE_SYSTEM_PROMPT },
    { role: "user", content: lines.join("\n") },
  ];
}

// ---------------------------------------------------------------------------------------------
// External simulator (the `simulator` paradigm, §2.2 fallback prompt; system prompt in our own wording)
// ---------------------------------------------------------------------------------------------

export const SIMULATOR_SYSTEM_PROMPT = `You execute tool calls. From the example calls you are shown you learn what the tool's results look like and which facts hold; then you return the result of a new call.

You receive the tool's JSON schema, example calls with their results (or <unavailable>, in which case you rely on the schema alone), and the new call.

Copy the structure and value types of the examples, keep every fact consistent with them, adapt the closest example when one is similar, and otherwise produce a new result in the same format. Fix mistakes you notice in the examples. If arguments are missing or invalid, return a short error in the same format as the examples.

Answer with a JSON object holding "analysis" (a short string, written first) and "execution_result" (a non-empty object or an array). Write no advice and do not mention the examples.`;

export const SIMULATOR_RESPONSE_SCHEMA = {
  name: "tool_execution_response",
  strict: true,
  schema: {
    type: "object",
    properties: {
      analysis: { type: "string" },
      execution_result: { anyOf: [{ type: "object", minProperties: 1 }, { type: "array" }] },
    },
    required: ["analysis", "execution_result"],
    additionalProperties: false,
  },
} as const;

/**
 * The external simulator's user message with the reference's labels (`build_single_call_user_prompt`):
 * the few-shot block over every reference call of the task (all tools, as the reference's httpx path
 * passes the task's whole map), a blank line, the tool name, its schema (`{}` when the tool is not a
 * candidate), the arguments, and the closing instruction. No description line: the reference adds one
 * only for offline SFT data.
 */
export function buildSimulatorPrompt(input: { call: RehearseCall; tools: ToolSchema[]; fewShot?: FewShotExample[] }): ChatMessage[] {
  const tool = input.tools.find((t) => t.function.name === input.call.name);
  const user =
    `${serializeFewShot(input.fewShot ?? [])}\n\n` +
    `Current tool name: ${input.call.name}\n` +
    `Current tool input schema (JSON Schema):\n${pyJson(tool ?? {})}\n` +
    `Current arguments (JSON):\n${pyJson(parsedArgs(input.call.argumentsJson))}\n` +
    "Generate tool execution result in JSON format.";
  return [
    { role: "system", content: SIMULATOR_SYSTEM_PROMPT },
    { role: "user", content: user },
  ];
}

/**
 * Extract `execution_result` from the external simulator's JSON answer, serialised as the reference
 * does (`json.dumps(execution_result, ensure_ascii=True)` after the tokenizer-safety pass on the answer).
 */
export function parseSimulatorResponse(text: string): { ok: true; content: string } | { ok: false; error: string } {
  const parsed = pyLoads(sanitizeText(text));
  if (!parsed.ok) return { ok: false, error: `simulator answer is not JSON: ${parsed.error}` };
  const answer = parsed.value;
  if (!(answer instanceof Map) || !answer.has("execution_result")) return { ok: false, error: "simulator answer has no execution_result" };
  const result = answer.get("execution_result")!;
  const isNonEmptyObject = result instanceof Map && result.size > 0;
  if (!isNonEmptyObject && !Array.isArray(result)) return { ok: false, error: "execution_result must be a non-empty object or an array" };
  const dumped = pyDumps(result, true);
  return dumped.ok ? { ok: true, content: dumped.json } : { ok: false, error: dumped.error };
}
