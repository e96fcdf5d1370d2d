/**
 * zod schemas of the Tinker-compatible API the embedded node serves (shared docs tinker-protocol.md §1
 * and §6 "A minimal compatible server"). The node is as strict as the strictest real server, so a
 * client that would fail against hosted Tinker or SkyRL tx fails here too: fields SkyRL tx requires are
 * required (create_session tags + sdk_version, create_model lora_config.rank, sampling_session_seq_id,
 * asample max_tokens, a seq_id with every sampling_session_id), `stop` must be a list of one kind, and
 * forward_backward chunks are limited as advertised in client/config (413 beyond). Unknown top-level
 * fields are ignored, as both servers do; wrong types are rejected.
 */
import { z } from "zod";

export const ID_PATTERN = /^[a-zA-Z0-9_-]{1,255}$/;
const idString = (what: string) => z.string().regex(ID_PATTERN, `${what} must match ^[a-zA-Z0-9_-]+$ (max 255 characters)`);

/** forward_backward chunk limits, advertised in client/config (the SDK's defaults) and enforced with 413. */
export const MAX_DATUMS_PER_REQUEST = 1024;
export const MAX_CHUNK_BYTES = 5_000_000;
export const MAX_TOKENS_PER_REQUEST = 262_144;
export const MAX_NUM_SAMPLES = 64;
/** The node trains all weights (no adapters); it accepts the ranks SkyRL's JAX backend accepts by default. */
export const MAX_LORA_RANK = 32;

const tokenArray = z.array(z.number().int("token ids must be integers"));

export const encodedTextChunk = z.object({ type: z.literal("encoded_text").optional(), tokens: tokenArray });
const otherChunk = z.object({ type: z.enum(["image", "image_asset_pointer", "dmel"]) }).passthrough();
export const modelInputSchema = z.object({
  chunks: z.array(z.union([encodedTextChunk, otherChunk])).min(1, "model_input.chunks must not be empty"),
});
export type ModelInput = z.infer<typeof modelInputSchema>;

export const tensorDataSchema = z.object({
  data: z.array(z.number()),
  dtype: z.enum(["int64", "float32", "int32"]).optional(),
  shape: z.array(z.number().int().nonnegative()).nullable().optional(),
});
export type TensorData = z.infer<typeof tensorDataSchema>;

export const datumSchema = z.object({
  model_input: modelInputSchema,
  loss_fn_inputs: z.record(tensorDataSchema),
});
export type Datum = z.infer<typeof datumSchema>;

export const lossFnSchema = z.enum(["cross_entropy", "importance_sampling", "ppo"], {
  errorMap: () => ({ message: "loss_fn must be one of cross_entropy, importance_sampling, ppo" }),
});

/** loss_fn_config: Tinker's clip thresholds plus node extensions (see train.ts). */
export const lossFnConfigSchema = z
  .object({
    clip_low_threshold: z.number().min(0).optional(),
    clip_high_threshold: z.number().positive().optional(),
    dual_clip_threshold: z.number().min(1).optional(),
    kl_coef: z.number().min(0).optional(),
    /** KL estimator as a number (loss_fn_config is float-valued): 1 = k1, 2 = k2, 3 = low_var_kl (default). */
    kl_type: z
      .number()
      .refine((v) => v === 1 || v === 2 || v === 3, "kl_type must be 1 (k1), 2 (k2) or 3 (low_var_kl)")
      .optional(),
    entropy_coef: z.number().min(0).optional(),
  })
  .strict();

export const fwdInputSchema = z.object({
  data: z.array(datumSchema).min(1, "data must contain at least one datum"),
  loss_fn: lossFnSchema,
  loss_fn_config: lossFnConfigSchema.nullable().optional(),
  forward_only: z.boolean().optional(),
});

/** Training ops must carry their model's seq_id (1, 2, …): the SDK always sends one and hosted Tinker range-checks it. */
const seqId = z.number({ required_error: "seq_id is required (1, 2, … per model, in submission order)" }).int().min(1, "seq_id must be at least 1");

export const forwardBackwardSchema = z.object({ model_id: idString("model_id"), seq_id: seqId, forward_backward_input: fwdInputSchema });
export const forwardSchema = z.object({ model_id: idString("model_id"), seq_id: seqId, forward_input: fwdInputSchema });

export const adamParamsSchema = z.object({
  learning_rate: z.number().min(0).max(10).default(1e-4),
  beta1: z.number().min(0).lt(1).default(0.9),
  beta2: z.number().min(0).lt(1).default(0.95),
  eps: z.number().positive().default(1e-12),
  weight_decay: z.number().min(0).default(0),
  grad_clip_norm: z.number().min(0).default(0),
});
export const optimStepSchema = z.object({ model_id: idString("model_id"), seq_id: seqId, adam_params: adamParamsSchema.default({}) });

export const createSessionSchema = z.object({
  tags: z.array(z.string()).max(100),
  user_metadata: z.record(z.unknown()).nullable().optional(),
  sdk_version: z.string().min(1).max(100),
});
export const heartbeatSchema = z.object({ session_id: idString("session_id") });

export const createModelSchema = z.object({
  session_id: idString("session_id"),
  model_seq_id: z.number().int().nonnegative().optional(),
  base_model: z.string().min(1).max(255),
  user_metadata: z.record(z.unknown()).nullable().optional(),
  lora_config: z.object({ rank: z.number().int().min(1, "lora_config.rank must be at least 1").max(MAX_LORA_RANK, `lora_config.rank must be at most ${MAX_LORA_RANK}`), seed: z.number().int().nullish() }).passthrough(),
});
export const modelIdSchema = z.object({ model_id: idString("model_id") });

export const saveWeightsForSamplerSchema = z
  .object({
    model_id: idString("model_id"),
    seq_id: seqId,
    path: idString("path").nullable().optional(),
    sampling_session_seq_id: z.number().int().nonnegative().nullable().optional(),
    ttl_seconds: z.number().int().positive().nullable().optional(),
  })
  .refine((b) => Boolean(b.path) || (b.sampling_session_seq_id != null && b.seq_id != null), {
    message: "give either path or both sampling_session_seq_id and seq_id",
  });
export const saveWeightsSchema = z.object({
  model_id: idString("model_id"),
  seq_id: seqId,
  path: idString("path"),
  ttl_seconds: z.number().int().positive().nullable().optional(),
  overwrite: z.boolean().default(false),
});
export const loadWeightsSchema = z.object({
  model_id: idString("model_id"),
  seq_id: seqId,
  path: z.string().min(1).max(1000),
  optimizer: z.boolean().default(true),
});

export const createSamplingSessionSchema = z
  .object({
    session_id: idString("session_id"),
    sampling_session_seq_id: z.number().int().nonnegative(),
    base_model: z.string().min(1).max(255).nullable().optional(),
    model_path: z.string().min(1).max(1000).nullable().optional(),
  })
  .refine((b) => Boolean(b.base_model) !== Boolean(b.model_path), { message: "give exactly one of base_model and model_path" });

export const samplingParamsSchema = z.object({
  max_tokens: z.number({ required_error: "max_tokens is required", invalid_type_error: "max_tokens is required" }).int().min(1, "max_tokens must be at least 1").max(100_000),
  seed: z.number().int().nullable().optional(),
  stop: z
    .union([z.array(z.string()), z.array(z.number().int())], { errorMap: () => ({ message: "stop must be a list of token ids or a list of strings (not a bare string, not mixed)" }) })
    .nullable()
    .optional(),
  temperature: z.number().min(0).max(100).default(1),
  top_k: z.number().int().default(-1),
  top_p: z.number().gt(0).max(1).default(1),
});

export const asampleSchema = z
  .object({
  prompt: modelInputSchema,
  num_samples: z.number().int().min(1).max(MAX_NUM_SAMPLES, `num_samples must be at most ${MAX_NUM_SAMPLES}`).default(1),
  sampling_params: samplingParamsSchema,
  sampling_session_id: z.string().min(1).max(300).nullable().optional(),
  seq_id: z.number().int().nonnegative().nullable().optional(),
  base_model: z.string().min(1).max(255).nullable().optional(),
  model_path: z.string().min(1).max(1000).nullable().optional(),
  prompt_logprobs: z.boolean().nullable().optional(),
  topk_prompt_logprobs: z.number().int().min(0).max(0, "topk_prompt_logprobs is not supported").default(0),
  })
  .superRefine((b, ctx) => {
    if (b.sampling_session_id) {
      if (b.seq_id === null || b.seq_id === undefined) ctx.addIssue({ code: "custom", path: ["seq_id"], message: "seq_id must be provided when sampling_session_id is used" });
    } else if (Boolean(b.base_model) === Boolean(b.model_path)) {
      ctx.addIssue({ code: "custom", message: "without sampling_session_id, give exactly one of base_model and model_path" });
    }
  });

export const retrieveFutureSchema = z.object({ request_id: z.string().min(1).max(300), allow_metadata_only: z.boolean().default(false) });

/** Flatten a ModelInput into token ids (only encoded_text chunks are supported). */
export function modelInputTokens(input: ModelInput, where: string): number[] {
  const out: number[] = [];
  for (const chunk of input.chunks) {
    if (!("tokens" in chunk)) throw new UserError(`${where}: chunk type '${(chunk as { type: string }).type}' is not supported by this node (text only)`);
    out.push(...(chunk.tokens as number[]));
  }
  return out;
}

/** An error caused by the request (HTTP 4xx / failed future with category "user"). */
export class UserError extends Error {
  constructor(
    message: string,
    readonly status = 400,
    readonly code = "invalid_request",
  ) {
    super(message);
  }
}

export function formatZodError(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.length ? i.path.join(".") : "body"}: ${i.message}`).join("; ");
}

export function parseBody<T extends z.ZodTypeAny>(schema: T, body: unknown): z.infer<T> {
  const r = schema.safeParse(body);
  if (!r.success) throw new UserError(formatZodError(r.error), 400, "validation_error");
  return r.data;
}
