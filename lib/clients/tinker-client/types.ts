/** What the client is configured with and what it sends: options, datums, losses, optimizer and sampling parameters. */
import type { TinkerServerProfile } from "../../../contracts/node-settings";

/** The SDK release whose wire protocol this client speaks (sent as sdk_version; servers gate features on it). */
export const TINKER_SDK_VERSION = "0.25.0";

export type WireFormat = "protobuf" | "json";

export interface TinkerClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Node name for error messages. */
  nodeName?: string;
  /** Which server this is; "auto" infers it (embedded node: capabilities; SkyRL tx: GET /; else hosted Tinker). */
  profile?: TinkerServerProfile;
  /** forward_backward body encoding; default protobuf (SDK 0.25), json for servers of the JSON era. */
  wire?: WireFormat;
  /** Per HTTP request timeout (ms) for everything but retrieve_future. */
  timeoutMs?: number;
  /** Per retrieve_future call (ms). Default: just past the server's long poll (SkyRL holds 300 s), else 45 s as the SDK. */
  pollTimeoutMs?: number;
  /** Overall deadline of one operation, submission to result (ms). */
  futureDeadlineMs?: number;
  /** How long one POST is retried on transient failures (ms); the SDK gives up after 5 minutes. */
  submitRetryMs?: number;
  /** Most retries of one POST on transient failures. */
  maxRetries?: number;
  heartbeatMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  fetch?: typeof fetch;
  /** Where warnings go (lost heartbeats, server messages, recoveries); default console.warn. */
  log?: (message: string) => void;
}

/**
 * Datum values: plain arrays, or typed arrays (what the policy builds: Int32Array token ids,
 * Float32Array values — the wire's own types, so serialising them is a copy, and a paper-scale step
 * takes a third of the memory).
 */
export type NumberArray = number[] | Float32Array | Int32Array | Float64Array;
export interface TensorData {
  data: NumberArray;
  dtype: "int64" | "float32";
  shape?: number[];
}
export interface Datum {
  model_input: { chunks: Array<{ type: "encoded_text"; tokens: number[] | Int32Array }> };
  loss_fn_inputs: Record<string, TensorData>;
}
export type LossFn = "cross_entropy" | "importance_sampling" | "ppo" | "cispo" | "dro";
export interface AdamParams {
  learning_rate: number;
  beta1: number;
  beta2: number;
  eps: number;
  weight_decay: number;
  grad_clip_norm: number;
}
export interface SamplingParams {
  max_tokens: number;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  seed?: number;
  stop?: number[] | string[];
}

/** Optional asample extras. */
export interface SampleExtras {
  /** Ask for each prompt token's log-probability (hosted Tinker; SkyRL tx since July 2026; the embedded node). */
  promptLogprobs?: boolean;
}
