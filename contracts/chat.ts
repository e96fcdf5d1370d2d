/**
 * Chat-level plain data shared by the engine (worker/engine), the protocol clients (lib/clients), the importers
 * (lib/cm2.ts, lib/tasks-jsonl.ts) and the node doctor: OpenAI-format messages, function-tool schemas and calls,
 * and the one call to a chat model. Types only; nothing here runs.
 */

/** A function call as it sits on an assistant message (OpenAI format): arguments as a JSON string. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** OpenAI-format chat message (envace-method.md §6.5). */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  name?: string;
  /** Tool messages: the id of the call answered (OpenAI-compatible clients need it). */
  tool_call_id?: string;
  tool_calls?: ToolCall[];
}

/** OpenAI function-tool schema. */
export interface ToolSchema {
  type: "function";
  function: {
    name: string;
    description?: string;
    parameters: { type: "object"; properties: Record<string, unknown>; required?: string[]; [k: string]: unknown };
    strict?: boolean;
  };
}

/** One call to a chat model (OpenAI chat-completions semantics). */
export interface ChatRequest {
  messages: ChatMessage[];
  /** Function tools the model may call; the reply then carries them as `toolCalls`. */
  tools?: ToolSchema[];
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  /** JSON schema for structured output (OpenAI response_format json_schema). */
  jsonSchema?: { name: string; schema: Record<string, unknown>; strict?: boolean };
  stop?: string[];
  signal?: AbortSignal;
  /**
   * Per-call time limit in ms. A client with `ownsTimeouts` enforces it itself (see there); for other
   * clients the caller aborts `signal` when it runs out (`completeWithin`, worker/engine/chat-call.ts).
   */
  timeoutMs?: number;
}

/** A chat model's reply. */
export interface ChatReply {
  /** The reply's content (without the reasoning when the node returns that separately). */
  text: string;
  /** Reasoning returned beside the content (vLLM/SGLang reasoning parsers); absent when the node gave none. */
  reasoning?: string;
  /** Function calls the node parsed out of the reply (requests with `tools`), arguments as a JSON string. */
  toolCalls?: { id: string; name: string; arguments: string }[];
  /** Why generation ended, when the node says ("tool_calls" when it parsed calls). */
  finishReason?: "stop" | "length" | "tool_calls";
}

/** A plain chat model: judges, user simulators, external tool simulators, policies on inference-only nodes. */
export interface ChatClient {
  complete(req: ChatRequest): Promise<ChatReply>;
  /**
   * True when `complete` enforces `req.timeoutMs` itself: counted from when the request is actually sent
   * (not while it waits for a slot under the node's concurrency cap) and lengthened to fit `maxTokens`
   * on slow nodes. Callers then pass the limit instead of racing their own timer.
   */
  readonly ownsTimeouts?: boolean;
}
