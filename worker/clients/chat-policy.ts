/**
 * The ONE policy adapter for chat-completion nodes (vLLM, SGLang, OpenAI, the embedded node's /v1), used
 * by every environment and run kind: a PolicyClient over a ChatClient.
 *
 * Out: the engine's conversation goes as OpenAI messages — assistant messages with their `tool_calls`
 * (ids included), each tool message with the `tool_call_id` of the call it answers — and the request's
 * tool schemas as function-calling `tools`, so the node's chat template renders them as the model was
 * trained on them.
 *
 * In: the node's tool-call and reasoning parsers split what the model wrote into `reasoning_content`,
 * `content` and `tool_calls`. The adapter writes them back into the act role's text format, the one the
 * engine's parser reads (envace-method.md §1.4) and a Tinker-served Qwen3 model emits itself:
 *
 *   <think>\n{reasoning}\n</think>\n\n{content}\n<tool_call>\n{"name": …, "arguments": …}\n</tool_call>…
 *
 * so the engine reads the same calls and text from a reply either way. The prompt is not the same: the
 * server renders the messages with the model's chat template (Qwen3's drops earlier turns' think blocks),
 * a Tinker-served policy is rendered by lib/renderers; a model that reads its context may answer
 * differently (docs/ARCHITECTURE.md). Text only (no token ids or logprobs): evaluated, not trained.
 */
import type { ChatClient, ChatMessage, ChatReply, GenerateRequest, GenerateResult, PolicyClient } from "../engine/io";

/**
 * The conversation with every tool message tied to its call: tool messages answer the preceding assistant
 * message's calls in order (as the engine appends them). A tool message that already names its call keeps
 * it; one with no call to answer (an act parse error's message) is left as it is.
 */
export function withToolCallIds(messages: ChatMessage[]): ChatMessage[] {
  let pending: string[] = [];
  return messages.map((m) => {
    if (m.role === "assistant") {
      pending = (m.tool_calls ?? []).map((c) => c.id);
      return m;
    }
    if (m.role !== "tool") {
      pending = [];
      return m;
    }
    if (m.tool_call_id) {
      pending = pending.filter((id) => id !== m.tool_call_id);
      return m;
    }
    const id = pending.shift();
    return id ? { ...m, tool_call_id: id } : m;
  });
}

/** `{"name": …, "arguments": …}` as the Qwen3/Hermes template renders an assistant tool call. */
function toolCallJson(call: { name: string; arguments: string }): string {
  const args = call.arguments.trim() === "" ? "{}" : call.arguments.trim();
  return `{"name": ${JSON.stringify(call.name)}, "arguments": ${args}}`;
}

const trimNewlines = (s: string) => s.replace(/^\n+|\n+$/g, "");

/**
 * A chat reply as the act/rehearse text the model would have written:
 * - reasoning (when the node returned it separately) goes back inside `<think>\n…\n</think>\n\n`; a reply
 *   cut off while still reasoning (finish "length", nothing else) stays an unclosed `<think>…`;
 * - then the content, then each tool call as a newline-delimited `<tool_call>` block (a newline is added
 *   only where the text does not already end with one).
 * Arguments are inserted as the node sent them: arguments that are not JSON make the act parser report
 * JSON_DECODE_ERROR, as they would for a model writing the block itself.
 */
export function policyTextOf(reply: ChatReply): string {
  const calls = reply.toolCalls ?? [];
  let text = "";
  let content = reply.text;
  if (reply.reasoning !== undefined) {
    if (reply.finishReason === "length" && content === "" && calls.length === 0) return `<think>${reply.reasoning}`;
    text = `<think>\n${trimNewlines(reply.reasoning)}\n</think>\n\n`;
    content = content.replace(/^\n+/, "");
  }
  text += content;
  for (const call of calls) text += `${text.endsWith("\n") ? "" : "\n"}<tool_call>\n${toolCallJson(call)}\n</tool_call>`;
  return text;
}

/** The policy on a chat-completion node (evaluation; training needs a Tinker-compatible node). */
export function chatPolicy(chat: ChatClient): PolicyClient {
  return {
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      const reply = await chat.complete({
        messages: withToolCallIds(req.messages),
        ...(req.tools?.length ? { tools: req.tools } : {}),
        temperature: req.sampling.temperature,
        topP: req.sampling.topP,
        maxTokens: req.sampling.maxTokens,
        ...(req.sampling.seed !== undefined ? { seed: req.sampling.seed } : {}),
      });
      return { text: policyTextOf(reply), promptTokens: [], tokens: [], logprobs: [], finishReason: reply.finishReason === "length" ? "length" : "stop" };
    },
  };
}
