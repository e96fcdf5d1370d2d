/**
 * A client for Tinker-compatible training servers — hosted Tinker, SkyRL tx and the embedded node —
 * speaking the wire protocol of the Python SDK 0.25 (../shared/docs/tinker-protocol.md; behaviour read
 * from the SDK's training_client.py, sampling_client.py, api_future_impl.py, internal_client_holder.py
 * and SkyRL's skyrl/tinker/api.py). What it guarantees, and why, is in ./README.md; one concern per file:
 * transport.ts (HTTP, credentials, retries), futures.ts (long polls), sequencer.ts (seq_ids),
 * model.ts (a training model's ops), chunking.ts and datums.ts (what forward_backward sends),
 * sampling.ts (sampling sessions), client.ts (bootstrap and session-level calls).
 */
export type { ClientConfig, ForwardBackwardOutput, SampleResponse, ServerCapabilities } from "../tinker-wire";
/** A resolved server profile ("auto" is resolved in start(), by lib/clients/tinker-profile.ts). */
export type { ResolvedProfile } from "../tinker-profile";
export { TinkerClient } from "./client";
export { TinkerModel } from "./model";
export { SamplingSession } from "./sampling";
export { type FailureCategory, TinkerError, type TinkerErrorKind } from "./errors";
export { chunkDatums, mergeChunkMetrics } from "./chunking";
export { tokensInput, validateDatum } from "./datums";
export {
  type AdamParams,
  type Datum,
  type LossFn,
  type NumberArray,
  type SampleExtras,
  type SamplingParams,
  type TensorData,
  TINKER_SDK_VERSION,
  type TinkerClientOptions,
  type WireFormat,
} from "./types";
