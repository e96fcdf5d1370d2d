/**
 * The engine's view of the outside world. The pure core depends only on these interfaces;
 * the worker injects implementations that speak the two protocols (OpenAI-compatible chat,
 * Tinker-compatible training API) or, in tests, small deterministic ones.
 */
import type { ChatMessage, ToolSchema } from "../../contracts/chat";
import type { KlType, LossAgg } from "../../contracts/run-config";

// The chat-level plain data lives in contracts/ (lib/ shares it); re-exported for the engine's importers.
export type { ChatClient, ChatMessage, ChatReply, ChatRequest, ToolCall, ToolSchema } from "../../contracts/chat";

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
  /**
   * Keep only the last this-many tokens of the rendered prompt (the reference's `rollout_max_prompt_length`
   * with `rollout_truncation=left`, applied to simulator prompts: envace-method.md §1.6). Absent: no cap.
   */
  maxPromptTokens?: number;
  /**
   * false: render this prompt with thinking off (Qwen3 `enable_thinking: false`: the prompt closes an empty
   * think block, so the reply is the answer itself), whatever the policy's own setting. Absent: the policy's.
   */
  thinking?: boolean;
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
