/**
 * The embedded node's OpenAI-compatible API (`/v1/models`, `/v1/chat/completions`), behaving like vLLM
 * started with `--enable-auto-tool-choice --tool-call-parser hermes` and a think-tag reasoning parser:
 *
 * - Requests are validated as vLLM validates them: `tools` must be a non-empty list of function tools,
 *   `tool_choice` needs `tools`, tool messages need a `tool_call_id`, assistant tool-call arguments must
 *   be JSON strings; fields vLLM ignores are accepted.
 * - Tool messages are rendered with the name of the call they answer (looked up by `tool_call_id`), and
 *   assistant messages with their tool calls, so a conversation sent here renders to the same prompt as
 *   the same conversation sampled through the Tinker API (lib/renderers/tiny-gpt/chat-format.ts).
 * - With `tools` (and `tool_choice` not "none") the model's own `<tool_call>` blocks are parsed the way
 *   vLLM's Hermes parser does: every block must be a JSON object with `name` and `arguments`, else the
 *   whole text stays content; on success `content` is the text before the first block (null when empty),
 *   `tool_calls` carry the calls (arguments as a JSON string) and finish_reason is "tool_calls".
 * - Reasoning is split out when the request asks for thinking (`chat_template_kwargs.enable_thinking:
 *   true`): the text up to `</think>` becomes `reasoning_content` (its leading `<think>` removed), the rest
 *   the content; without a `</think>` everything is content. `include_reasoning: false` drops it (vLLM).
 * - Not supported (400): streaming, `tool_choice` "required" or a named function.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { ChatMessage } from "../engine/io";
import { decode as decodeChat, renderPrompt, stopTokens as chatStopTokens } from "../../lib/renderers/tiny-gpt/chat-format";
import { MAX_NUM_SAMPLES, UserError, parseBody } from "./protocol";
import type { NodeService } from "./service";
import { tokenBytes, tokenString } from "../../lib/renderers/tiny-gpt/tokenizer";

// ------------------------------------------------------------------ request schema

const contentSchema = z.union([
  z.string(),
  z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough()),
  z.null(),
]);

const jsonString = z.string().refine(
  (s) => {
    try {
      JSON.parse(s);
      return true;
    } catch {
      return false;
    }
  },
  { message: "must be a JSON-encoded string" },
);

const chatMessageSchema = z
  .object({
    role: z.enum(["system", "developer", "user", "assistant", "tool"]),
    content: contentSchema.optional(),
    name: z.string().max(200).optional(),
    tool_calls: z
      .array(z.object({ id: z.string().min(1), type: z.literal("function"), function: z.object({ name: z.string().min(1), arguments: jsonString }) }))
      .nullish(),
    tool_call_id: z.string().min(1).optional(),
    reasoning_content: z.string().nullish(),
    reasoning: z.string().nullish(),
  })
  .passthrough()
  .superRefine((m, ctx) => {
    if (m.role === "tool" && !m.tool_call_id) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["tool_call_id"], message: "tool messages need the tool_call_id of the call they answer" });
  });

const toolSchema = z.object({
  type: z.literal("function"),
  function: z
    .object({ name: z.string().min(1), description: z.string().optional(), parameters: z.record(z.unknown()).optional(), strict: z.boolean().optional() })
    .passthrough(),
});

export const chatCompletionSchema = z
  .object({
    model: z.string().min(1, "model is required"),
    messages: z.array(chatMessageSchema).min(1, "messages must not be empty"),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().gt(0).max(1).nullable().optional(),
    top_k: z.number().int().min(-1).nullable().optional(),
    max_tokens: z.number().int().min(1).nullable().optional(),
    max_completion_tokens: z.number().int().min(1).nullable().optional(),
    n: z.number().int().min(1).max(MAX_NUM_SAMPLES).nullable().optional(),
    stop: z.union([z.string(), z.array(z.string()).max(4)]).nullable().optional(),
    seed: z.number().int().nullable().optional(),
    logprobs: z.boolean().nullable().optional(),
    top_logprobs: z.number().int().min(0).max(0, "top_logprobs is not supported by this node (use logprobs: true)").nullable().optional(),
    stream: z.boolean().nullable().optional(),
    tools: z.array(toolSchema).min(1, "`tools` must not be an empty array; omit it instead").nullable().optional(),
    tool_choice: z
      .union([z.enum(["none", "auto", "required"]), z.object({ type: z.literal("function"), function: z.object({ name: z.string() }) })])
      .nullable()
      .optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    include_reasoning: z.boolean().nullable().optional(),
    chat_template_kwargs: z.record(z.unknown()).nullable().optional(),
  })
  .passthrough();

export type ChatCompletionRequest = z.infer<typeof chatCompletionSchema>;

// ------------------------------------------------------------------ messages in

function textOf(content: z.infer<typeof contentSchema> | undefined): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((p) => p.text ?? "").join("");
}

/**
 * OpenAI messages → engine ChatMessages for rendering: developer → system, content parts → text, an
 * assistant's separate reasoning back inside its think tags, and each tool message named after the call
 * it answers.
 */
export function toChatMessages(messages: z.infer<typeof chatMessageSchema>[]): ChatMessage[] {
  const callNames = new Map<string, string>();
  return messages.map((m) => {
    if (m.role === "assistant") {
      for (const c of m.tool_calls ?? []) callNames.set(c.id, c.function.name);
      const reasoning = m.reasoning_content ?? m.reasoning;
      const content = textOf(m.content);
      return {
        role: "assistant",
        content: typeof reasoning === "string" ? `<think>\n${reasoning.replace(/^\n+|\n+$/g, "")}\n</think>\n\n${content.replace(/^\n+/, "")}` : content,
        ...(m.name ? { name: m.name } : {}),
        ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}),
      };
    }
    if (m.role === "tool") {
      const name = m.name ?? (m.tool_call_id ? callNames.get(m.tool_call_id) : undefined);
      return { role: "tool", content: textOf(m.content), ...(name ? { name } : {}), ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}) };
    }
    return { role: m.role === "developer" ? "system" : m.role, content: textOf(m.content), ...(m.name ? { name: m.name } : {}) };
  });
}

// ------------------------------------------------------------------ output parsers

export interface ParsedToolCalls {
  /** Text before the first `<tool_call>`; null when there is none. */
  content: string | null;
  calls: { name: string; arguments: string }[];
}

/**
 * Hermes-style tool-call extraction: every `<tool_call>…</tool_call>` block (or a final unclosed one)
 * must hold a JSON object with a string `name` and an `arguments` value; any failure means no calls.
 */
export function parseToolCallBlocks(text: string): ParsedToolCalls | null {
  const start = text.indexOf("<tool_call>");
  if (start < 0) return null;
  const calls: ParsedToolCalls["calls"] = [];
  const blocks = /<tool_call>([\s\S]*?)<\/tool_call>|<tool_call>([\s\S]*)/g;
  for (const match of text.matchAll(blocks)) {
    let value: unknown;
    try {
      value = JSON.parse(match[1] ?? match[2] ?? "");
    } catch {
      return null;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
    const { name, arguments: args } = value as Record<string, unknown>;
    if (typeof name !== "string" || !name || !("arguments" in value)) return null;
    calls.push({ name, arguments: JSON.stringify(args ?? null) });
  }
  const content = text.slice(0, start);
  return { content: content === "" ? null : content, calls };
}

/** Think-tag reasoning split: text up to `</think>` (minus a leading `<think>`) and the rest; null without `</think>`. */
export function splitReasoning(text: string): { reasoning: string; content: string } | null {
  const close = text.indexOf("</think>");
  if (close < 0) return null;
  const head = text.slice(0, close);
  const open = head.indexOf("<think>");
  return { reasoning: open >= 0 ? head.slice(open + "<think>".length) : head, content: text.slice(close + "</think>".length) };
}

// ------------------------------------------------------------------ routes

export interface OpenAIReply {
  status: number;
  body: Record<string, unknown>;
}

export function listModels(service: NodeService): OpenAIReply {
  const created = Math.floor(service.stats.startedAt / 1000);
  return { status: 200, body: { object: "list", data: service.listSamplerNames().map((id) => ({ id, object: "model", created, owned_by: "embedded-node" })) } };
}

export async function chatCompletion(service: NodeService, body: unknown): Promise<OpenAIReply> {
  const b = parseBody(chatCompletionSchema, body);
  if (b.stream) throw new UserError("stream: true is not supported by this node", 400, "unsupported");
  if (b.tool_choice && b.tool_choice !== "none" && !b.tools?.length) throw new UserError("When using `tool_choice`, `tools` must be set.", 400, "invalid_request");
  if (b.tool_choice === "required" || (typeof b.tool_choice === "object" && b.tool_choice !== null))
    throw new UserError('tool_choice "required" or a named function is not supported by this node (use "auto")', 400, "unsupported");
  const useTools = !!b.tools?.length && b.tool_choice !== "none";
  const thinking = b.chat_template_kwargs?.enable_thinking === true;

  const sampler = await service.resolveSampler({ name: b.model });
  const prompt = renderPrompt(toChatMessages(b.messages));
  const maxTokens = b.max_completion_tokens ?? b.max_tokens ?? 256;
  const stopStrings = b.stop === null || b.stop === undefined ? [] : typeof b.stop === "string" ? [b.stop] : b.stop;
  const seqs = await service.sample(sampler, {
    prompt,
    numSamples: b.n ?? 1,
    maxTokens,
    temperature: b.temperature ?? 1,
    topP: b.top_p ?? 1,
    topK: b.top_k && b.top_k > 0 ? b.top_k : -1,
    stop: [...chatStopTokens, ...stopStrings],
    seed: b.seed,
  });
  const choices = seqs.map((q, index) => {
    // Drop the end-of-message token; apply stop strings to the text (OpenAI excludes the stop string).
    let tokens = q.stopReason === "stop" && chatStopTokens.includes(q.tokens[q.tokens.length - 1]) ? q.tokens.slice(0, -1) : q.tokens;
    let text = decodeChat(tokens);
    let finish: "stop" | "length" | "tool_calls" = q.stopReason;
    for (const s of stopStrings) {
      const at = text.indexOf(s);
      if (s && at >= 0) {
        text = text.slice(0, at);
        finish = "stop";
        // keep the tokens that make up the returned text
        let bytes = Buffer.byteLength(text, "utf8");
        const kept: number[] = [];
        for (const t of tokens) {
          if (bytes <= 0) break;
          kept.push(t);
          bytes -= tokenBytes(t).length;
        }
        tokens = kept;
      }
    }
    const logprobs = b.logprobs
      ? { content: tokens.map((t, i) => ({ token: tokenString(t), logprob: q.logprobs[i], bytes: tokenBytes(t), top_logprobs: [] })) }
      : null;

    const split = thinking ? splitReasoning(text) : null;
    let content: string | null = split ? split.content : text;
    const parsed = useTools ? parseToolCallBlocks(content) : null;
    const message: Record<string, unknown> = { role: "assistant" };
    if (parsed) {
      content = parsed.content;
      message.tool_calls = parsed.calls.map((c) => ({ id: `call_${randomBytes(12).toString("hex")}`, type: "function", function: c }));
      finish = "tool_calls"; // as vLLM reports whenever its parser found calls
    }
    message.content = content;
    if (split && b.include_reasoning !== false) message.reasoning_content = split.reasoning;
    return { index, message, finish_reason: finish, logprobs };
  });
  const completionTokens = seqs.reduce((n, q) => n + q.tokens.length, 0);
  return {
    status: 200,
    body: {
      id: `chatcmpl-${randomBytes(8).toString("hex")}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: b.model,
      choices,
      usage: { prompt_tokens: prompt.length, completion_tokens: completionTokens, total_tokens: prompt.length + completionTokens },
    },
  };
}
