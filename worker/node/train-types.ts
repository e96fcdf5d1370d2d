/** What a forward_backward trains on and returns, the loss settings, the optimizer's parameters and state. */
import type { KlType } from "./loss";

export type LossFnName = "cross_entropy" | "importance_sampling" | "ppo";
export const LOSS_FNS: LossFnName[] = ["cross_entropy", "importance_sampling", "ppo"];

export interface TrainDatum {
  /** Model input tokens (length N). */
  tokens: number[];
  /** Targets: target_tokens[i] is predicted from tokens[0..i]. Length N. */
  targets: number[];
  weights?: number[];
  /** Sampling logprobs of the targets (RL losses). */
  logprobs?: number[];
  advantages?: number[];
}

export interface LossConfig {
  clipLowThreshold: number;
  clipHighThreshold: number;
  dualClipThreshold: number | null;
  klCoef: number;
  klType: KlType;
  entropyCoef: number;
}

export const DEFAULT_LOSS_CONFIG: LossConfig = { clipLowThreshold: 0.8, clipHighThreshold: 1.2, dualClipThreshold: null, klCoef: 0, klType: "low_var_kl", entropyCoef: 0 };

export interface DatumOutput {
  logprobs: number[];
  elementwise_loss: number[];
}

export interface ForwardBackwardResult {
  outputs: DatumOutput[];
  metrics: Record<string, number>;
}

export interface AdamParams {
  learningRate: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** 0 disables clipping. */
  gradClipNorm: number;
}

/** Raised for bad inputs (a user error: HTTP 400 / future category "user"). */
export class TrainingInputError extends Error {}

export interface OptimizerState {
  step: number;
  m: Map<string, Float32Array>;
  v: Map<string, Float32Array>;
}
