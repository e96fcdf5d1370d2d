/**
 * ChatClient (worker/engine/io.ts) over the `openai` npm package: judges, user simulators and
 * external tool simulators on any OpenAI-compatible node (vLLM, SGLang, OpenAI, the embedded node).
 * Timeout and retries are the package's (it retries 408/409/429/5xx and connection errors with
 * backoff); `signal` aborts a call.
 */
import OpenAI from "openai";
import type { ChatClient, ChatMessage } from "../engine/io";

export interface OpenAIChatOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
  maxRetries?: number;
}

/** Engine messages → OpenAI messages (tool messages need a tool_call_id; the tool name stands in when none is known). */
export function toOpenAIMessages(messages: ChatMessage[]): OpenAI.Chat.ChatCompletionMessageParam[] {
  return messages.map((m): OpenAI.Chat.ChatCompletionMessageParam => {
    switch (m.role) {
      case "system":
        return { role: "system", content: m.content };
      case "user":
        return { role: "user", content: m.content, ...(m.name ? { name: m.name } : {}) };
      case "assistant":
        return { role: "assistant", content: m.content, ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}) };
      case "tool":
        return { role: "tool", content: m.content, tool_call_id: (m as { tool_call_id?: string }).tool_call_id ?? m.name ?? "call" };
    }
  });
}

export class OpenAIChatClient implements ChatClient {
  private readonly client: OpenAI;

  constructor(private readonly opts: OpenAIChatOptions) {
    this.client = new OpenAI({
      baseURL: opts.baseUrl.replace(/\/+$/, ""),
      apiKey: opts.apiKey || "not-needed",
      timeout: opts.timeoutMs ?? 120_000,
      maxRetries: opts.maxRetries ?? 5,
    });
  }

  async complete(req: Parameters<ChatClient["complete"]>[0]): Promise<{ text: string }> {
    const res = await this.client.chat.completions.create(
      {
        model: this.opts.model,
        messages: toOpenAIMessages(req.messages),
        ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
        ...(req.topP !== undefined ? { top_p: req.topP } : {}),
        ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}),
        ...(req.stop?.length ? { stop: req.stop } : {}),
        ...(req.jsonSchema
          ? { response_format: { type: "json_schema" as const, json_schema: { name: req.jsonSchema.name, schema: req.jsonSchema.schema, strict: req.jsonSchema.strict ?? true } } }
          : {}),
      },
      { signal: req.signal },
    );
    const choice = res.choices[0];
    if (!choice) throw new Error(`chat completion from ${this.opts.baseUrl} returned no choices`);
    return { text: choice.message.content ?? "" };
  }
}

export function createOpenAIChatClient(opts: OpenAIChatOptions): ChatClient {
  return new OpenAIChatClient(opts);
}
