/**
 * The engine's view of the outside world. The pure core depends only on these interfaces;
 * the worker injects implementations that speak the two protocols (OpenAI-compatible chat,
 * Tinker-compatible training API) or, in tests, small deterministic ones.
 */
import type { KlType, LossAgg } from "../../contracts/run-config";

/** OpenAI-format chat message (envace-method.md §6.5). */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  name?: string;
  /** Tool messages: the id of the call answered (OpenAI-compatible clients need it). */
  tool_call_id?: string;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
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

export type Role = "act" | "rehearse";

export interface SamplingOptions {
  temperature: number;
  topP: number;
  maxTokens: number;
  seed?: number;
}

export interface GenerateRequest {
  role: Role;
  messages: ChatMessage[];
  /** Tool schemas for the act role (a chat template may place them in the system prompt). */
  tools?: ToolSchema[];
  sampling: SamplingOptions;
}

export interface GenerateResult {
  text: string;
  /** Token ids of the rendered prompt and of the sampled response (empty when the node gives none). */
  promptTokens: number[];
  tokens: number[];
  /** Per-token sampling logprobs of `tokens`, exactly as returned by the node. */
  logprobs: number[];
  finishReason: "stop" | "length";
}

/** Samples from the policy (both roles, same weights in share mode). */
export interface PolicyClient {
  generate(req: GenerateRequest): Promise<GenerateResult>;
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

/** One training row: a prompt+response with per-token inputs for the policy-gradient loss. */
export interface TrainingDatum {
  promptTokens: number[];
  responseTokens: number[];
  /** Sampling logprobs of responseTokens. */
  logprobs: number[];
  /** Per-token advantages (the row's scalar advantage repeated). */
  advantages: number[];
  role: Role;
}

export interface LossConfig {
  loss: "ppo" | "importance_sampling";
  clipLow: number;
  clipHigh: number;
  dualClip: number;
  /** 0 = no KL term (run config optim.useKl off). */
  klCoef: number;
  klType: KlType;
  entropyCoef: number;
  /** verl loss_agg_mode over the rows of one forwardBackward call (one training step). */
  lossAgg: LossAgg;
  /** Take the ratio against log-probs the trainer recomputes before the update, not the sampler's. */
  recomputeLogprobs: boolean;
}

export interface OptimConfig {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  gradClip: number;
}

/** The training side of a node (Tinker-compatible). */
export interface TrainerClient {
  forwardBackward(data: TrainingDatum[], loss: LossConfig): Promise<{ metrics: Record<string, number> }>;
  optimStep(optim: OptimConfig): Promise<{ metrics: Record<string, number> }>;
  /** Publish the current weights to the policy's sampler (ephemeral: every training step). */
  updateSampler(): Promise<void>;
  /** Persistent publication under `name` (checkpoints); returns a sampler path usable by the policy client. */
  saveWeightsForSampler(name: string): Promise<{ path: string }>;
  /** Save full training state (weights + optimizer); returns a path. */
  saveState(name: string): Promise<{ path: string }>;
  loadState(path: string): Promise<void>;
}
