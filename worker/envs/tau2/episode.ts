/**
 * The terms of a tau2 episode that the engine's live-user rollout (live.ts) uses: how a user
 * simulator's stop token ends the episode, and the policy on a chat-only node, which gets the tools as
 * text. The episode loop itself is the engine's rollout (worker/engine/rollout.ts) over a live-user
 * instance.
 */
import type { ChatClient, ChatMessage, GenerateRequest, PolicyClient, ToolSchema } from "../../engine/io";
import { renderToolCalls } from "../../engine/prompts";
import type { StopToken } from "./prompts";

/** How an episode ends normally: the user simulator's stop tokens (spec §8). */
export type TerminationReason = "user_stop" | "transfer" | "out_of_scope";

/** Termination reason of each stop token (spec §8). */
export const STOP_REASON: Record<StopToken, TerminationReason> = {
  "###STOP###": "user_stop",
  "###TRANSFER###": "transfer",
  "###OUT-OF-SCOPE###": "out_of_scope",
};

/**
 * A plain chat model's view of a tool-using conversation: the tool schemas and the `<tool_call>` format
 * are appended to the system message, earlier calls are written as `<tool_call>` text and tool results
 * as `<tool_response>` user messages (no tool roles, so any chat endpoint accepts it).
 */
export function toolsAsText(messages: ChatMessage[], tools: ToolSchema[]): ChatMessage[] {
  const toolText =
    "\n\n# Tools\nTo call a function, write a newline, <tool_call>, a newline, {\"name\": <function-name>, \"arguments\": <args-json-object>}, a newline and </tool_call>.\n" +
    `<tools>\n${tools.map((t) => JSON.stringify(t)).join("\n")}\n</tools>`;
  const hasSystem = messages[0]?.role === "system";
  const rest = hasSystem ? messages.slice(1) : messages;
  const flattened = rest.map((m): ChatMessage =>
    m.role === "tool"
      ? { role: "user", content: `<tool_response>\n${m.content}\n</tool_response>` }
      : m.tool_calls?.length
        ? { role: "assistant", content: `${m.content}${renderToolCalls(m.tool_calls)}` }
        : m,
  );
  return [{ role: "system", content: (hasSystem ? messages[0].content : "") + toolText }, ...flattened];
}

/**
 * The policy on an OpenAI-compatible (inference-only) node: act prompts carry the tools as text (see
 * `toolsAsText`), rehearse prompts go as they are. Text only: no token ids, so evaluation, not training.
 */
export function chatClientPolicy(client: ChatClient): PolicyClient {
  return {
    async generate(req: GenerateRequest) {
      const messages = req.role === "act" && req.tools?.length ? toolsAsText(req.messages, req.tools) : req.messages;
      const { text } = await client.complete({ messages, temperature: req.sampling.temperature, topP: req.sampling.topP, maxTokens: req.sampling.maxTokens });
      return { text, promptTokens: [], tokens: [], logprobs: [], finishReason: "stop" as const };
    },
  };
}
