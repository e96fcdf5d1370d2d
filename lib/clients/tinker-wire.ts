/**
 * zod schemas for every reply a Tinker-compatible server sends (hosted Tinker, SkyRL tx, the embedded
 * node), so a server that answers with an unknown shape fails with an error naming the endpoint and
 * the field instead of a TypeError three calls later. Unknown fields are dropped, as the SDK's
 * response models do ("extra=ignore"); defaults are the SDK's.
 */
import { z } from "zod";

const finite = z.number().finite();

/** POST client/config. SkyRL returns only pjwt_auth_enabled; every other flag takes the SDK default. */
export const clientConfigReply = z.object({
  pjwt_auth_enabled: z.boolean().default(false),
  credential_default_source: z.string().default("api_key"),
  parallel_fwdbwd_chunks: z.boolean().default(true),
  proto_compress_fwdbwd: z.boolean().default(false),
  fwdbwd_max_chunk_len: z.number().int().positive().default(1024),
  fwdbwd_max_chunk_bytes_count: z.number().int().positive().default(5_000_000),
  sample_max_concurrent_requests: z.number().int().positive().default(2000),
});
export type ClientConfig = z.infer<typeof clientConfigReply>;

export const authTokenReply = z.object({ jwt: z.string().min(1) });

export const createSessionReply = z.object({
  session_id: z.string().min(1),
  info_message: z.string().nullish(),
  warning_message: z.string().nullish(),
  error_message: z.string().nullish(),
});

export const heartbeatReply = z.object({}).passthrough();

export const capabilitiesReply = z.object({
  supported_models: z.array(z.object({ model_name: z.string(), max_context_length: z.number().int().positive().nullish() })),
  /** Present on the EnvACE embedded node only. */
  node: z.object({ kind: z.string(), version: z.string(), extensions: z.array(z.string()), max_lora_rank: z.number().int().positive().optional() }).optional(),
});
export type ServerCapabilities = z.infer<typeof capabilitiesReply>;

/** The immediate reply of every future-returning POST. request_id is a JSON string on every server. */
export const untypedFutureReply = z.object({ request_id: z.string().min(1, "request_id must not be empty"), model_id: z.string().nullish() });

export const createSamplingSessionReply = z.object({ sampling_session_id: z.string().min(1) });

/** GET samplers/{id}: what a sampling session samples — its base model, or the checkpoint's sampler path. */
export const samplerInfoReply = z.object({ sampler_id: z.string(), base_model: z.string().nullish(), model_path: z.string().nullish() }).passthrough();

/** GET / of SkyRL tx identifies it ("Tinker API Mock"); other servers may 404. */
export const rootReply = z.object({ name: z.string().optional() }).passthrough();

export const getInfoReply = z
  .object({
    model_id: z.string(),
    model_data: z.object({ model_name: z.string().nullish(), base_model: z.string().nullish(), tokenizer_id: z.string().nullish() }).passthrough().nullish(),
  })
  .passthrough();

// ------------------------------------------------------------------ retrieve_future outcomes

export const tryAgainReply = z.object({
  type: z.literal("try_again"),
  queue_state: z.string().nullish(),
  queue_state_reason: z.string().nullish(),
});

/** A failed future in the hosted shape (HTTP 200). SkyRL answers HTTP 400 {detail} instead. */
export const failedFutureReply = z.object({ error: z.string(), category: z.string().nullish() });

export const createModelResult = z.object({ model_id: z.string().min(1) });

const tensor = z.object({ data: z.array(finite), dtype: z.enum(["int64", "float32"]).optional(), shape: z.array(z.number().int()).nullish() });

export const forwardBackwardResult = z.object({
  loss_fn_output_type: z.string().default(""),
  loss_fn_outputs: z.array(z.record(tensor)),
  metrics: z.record(finite).default({}),
});
export type ForwardBackwardOutput = z.infer<typeof forwardBackwardResult>;

export const optimStepResult = z.object({ metrics: z.record(finite).nullish() });

export const saveWeightsForSamplerResult = z.object({ path: z.string().nullish(), sampling_session_id: z.string().nullish() });

export const saveWeightsResult = z.object({ path: z.string().min(1) });

export const loadWeightsResult = z.object({ path: z.string().nullish() }).passthrough();

export const unloadModelResult = z.object({}).passthrough();

export const sampleResult = z.object({
  sequences: z.array(
    z.object({
      stop_reason: z.enum(["stop", "length"]),
      tokens: z.array(z.number().int()),
      logprobs: z.array(z.number()).nullish(),
    }),
  ),
  /** Asked for with prompt_logprobs: each prompt token's log-probability (null for the first). */
  prompt_logprobs: z.array(z.number().nullable()).nullish(),
});
export type SampleResponse = z.infer<typeof sampleResult>;

/** `path: message` of the first few issues, for error messages. */
export function describeZodError(err: z.ZodError): string {
  return err.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join(".") : "(reply)"}: ${i.message}`)
    .join("; ");
}
