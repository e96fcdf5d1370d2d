/**
 * Chat format of the tiny model. Each message renders as
 *
 *   <|role|> [name "\n"] content [tool calls] <|end|>
 *
 * and a generation prompt is a bare `<|assistant|>`; generation stops at `<|end|>`.
 * Tool calls of past assistant messages are rendered as text blocks in the same shape the act
 * role must emit ("\n<tool_call>\n{"name":…,"arguments":{…}}\n</tool_call>"), so the model sees
 * its own output format. Tool results render as `<|tool|>name\ncontent<|end|>`.
 *
 * The template is deliberately compact: tool SCHEMAS are not rendered into the prompt (they would
 * cost thousands of byte tokens in a 1024-token context). The tiny model learns the tool set of
 * its domain during warm start; `tools` is accepted for interface compatibility and ignored.
 * The same weights play both roles: act and rehearse differ only by the messages the engine builds.
 */
import { END_TOKEN, SPECIAL_TOKENS, decode as decodeTokens, encodeText } from "./tokenizer";

/** An OpenAI-style message as the tiny format renders it (tool-call arguments as JSON strings). */
export interface TinyChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  name?: string;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
}

const ROLE_TOKEN: Record<TinyChatMessage["role"], number> = {
  system: SPECIAL_TOKENS["<|system|>"],
  user: SPECIAL_TOKENS["<|user|>"],
  assistant: SPECIAL_TOKENS["<|assistant|>"],
  tool: SPECIAL_TOKENS["<|tool|>"],
};

/** Stop tokens of generation. */
export const stopTokens: number[] = [END_TOKEN];

/** Text of an assistant message including its tool calls, as the model would have written it. */
export function assistantText(message: Pick<TinyChatMessage, "content" | "tool_calls">): string {
  let text = message.content ?? "";
  for (const call of message.tool_calls ?? []) {
    let args: unknown = call.function.arguments;
    try {
      args = JSON.parse(call.function.arguments);
    } catch {
      // keep the raw string: the model should still see what was sent
    }
    text += `\n<tool_call>\n${JSON.stringify({ name: call.function.name, arguments: args })}\n</tool_call>`;
  }
  return text;
}

export function renderMessage(message: TinyChatMessage): number[] {
  const body =
    message.role === "assistant"
      ? assistantText(message)
      : message.role === "tool" && message.name
        ? `${message.name}\n${message.content}`
        : message.content;
  return [ROLE_TOKEN[message.role], ...encodeText(body), END_TOKEN];
}

/** Renders a conversation and appends the generation prompt for the next assistant message. */
export function renderPrompt(messages: TinyChatMessage[], _tools?: unknown[]): number[] {
  const out: number[] = [];
  for (const m of messages) out.push(...renderMessage(m));
  out.push(SPECIAL_TOKENS["<|assistant|>"]);
  return out;
}

/** Target tokens of a completion: its bytes followed by the stop token. */
export function renderCompletion(text: string): number[] {
  return [...encodeText(text), END_TOKEN];
}

/** Decodes sampled tokens to text, dropping a trailing stop token and other special tokens. */
export function decode(tokens: number[]): string {
  const body = tokens.length && stopTokens.includes(tokens[tokens.length - 1]) ? tokens.slice(0, -1) : tokens;
  return decodeTokens(body, { skipSpecial: true });
}
