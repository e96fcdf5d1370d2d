/**
 * Per-node settings, stored as `node.settings` (JSON) and validated with this schema wherever they
 * are read or written (API input, the worker reading them back). One schema, extended section by
 * section: how prompts are rendered for the node's models, client limits, vendor extras.
 * `{}` parses to the defaults.
 */
import { z } from "zod";

/**
 * Which Tinker-compatible server a node runs. Servers differ in loss normalisation, error shapes and
 * what they accept (../shared/docs/tinker-protocol.md §3–4); the client adapts to the profile.
 * "auto" infers it from the server's replies (the embedded node announces itself).
 */
export const tinkerServerProfiles = ["auto", "tinker", "skyrl-jax", "skyrl-train", "envace-embedded"] as const;
export type TinkerServerProfile = (typeof tinkerServerProfiles)[number];

/** Chat renderers (lib/renderers): "auto" infers one from the model name (Qwen/Qwen3-*, meta-llama/Llama-3.1-*-Instruct, tiny-gpt). */
export const rendererNames = ["auto", "qwen3", "llama3.1", "tiny-gpt", "hf"] as const;

/** How one model served by the node is rendered into tokens (Tinker-compatible nodes sample from token ids). */
export const modelRenderSettingsSchema = z
  .object({
    renderer: z
      .enum(rendererNames)
      .default("auto")
      .describe("Chat renderer: auto (from the model name), qwen3, llama3.1, tiny-gpt, or hf (the tokenizer directory's own template)"),
    tokenizer: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .describe("Local directory with the model's tokenizer.json and tokenizer_config.json (replaces the renderer's built-in files)"),
    enableThinking: z
      .boolean()
      .optional()
      .describe("Qwen3's enable_thinking template switch (unset: the template's default, thinking on)"),
    contextLength: z
      .number()
      .int()
      .min(16)
      .max(10_000_000)
      .optional()
      .describe("The model's context window in tokens; max_tokens is clamped to it (unset: the server's advertised value, else the renderer's)"),
  })
  .strict();
export type ModelRenderSettingsInput = z.input<typeof modelRenderSettingsSchema>;

/**
 * Request fields the worker sets itself on every chat call (from the run config or the call): an
 * `openai.extraBody` key among them would be overwritten or would break the call, so it is refused.
 */
export const OPENAI_RESERVED_BODY_FIELDS = [
  "model",
  "messages",
  "tools",
  "tool_choice",
  "stream",
  "stream_options",
  "temperature",
  "top_p",
  "max_tokens",
  "max_completion_tokens",
  "stop",
  "seed",
  "response_format",
  "n",
] as const;

/** OpenAI-compatible chat (vLLM, SGLang, OpenAI, the embedded node): vendor extras, limits, timeouts. */
export const openAINodeSettingsSchema = z
  .object({
    extraBody: z
      .record(z.unknown())
      .default({})
      .superRefine((body, ctx) => {
        for (const key of Object.keys(body)) {
          if ((OPENAI_RESERVED_BODY_FIELDS as readonly string[]).includes(key)) {
            ctx.addIssue({ code: z.ZodIssueCode.custom, path: [key], message: `"${key}" is set by the run or the call itself; remove it from extraBody` });
          }
        }
      })
      .describe('Vendor fields merged into every chat request, e.g. {"chat_template_kwargs":{"enable_thinking":false},"top_k":20} for vLLM/SGLang'),
    requestTimeoutS: z
      .number()
      .min(1)
      .max(3600)
      .default(120)
      .describe("Time allowed for a reply (streaming: for silence between chunks); calls with a token budget get more, see minDecodeTokensPerS"),
    minDecodeTokensPerS: z
      .number()
      .min(0.1)
      .max(100_000)
      .default(10)
      .describe("Slowest decode speed per request to plan for under load: a call may take requestTimeoutS + maxTokens / this before it is abandoned"),
    stream: z
      .boolean()
      .default(false)
      .describe("Stream replies (SSE): stalls are detected after requestTimeoutS of silence, and proxies do not cut long reasoning replies"),
    maxConcurrency: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(64)
      .describe("Most requests in flight to this node from all workers together, shared by every role (policy, judge, simulators) using it"),
    maxRetries: z
      .number()
      .int()
      .min(0)
      .max(20)
      .default(5)
      .describe("Retries after 408/409/429/5xx answers and connection errors, with exponential backoff (Retry-After honoured)"),
    maxRetryWaitS: z
      .number()
      .min(0)
      .max(600)
      .default(60)
      .describe("Longest single wait before a retry, also when the node's Retry-After asks for more"),
  })
  .strict();

export type OpenAINodeSettings = z.infer<typeof openAINodeSettingsSchema>;

/**
 * How a run rides out a restart or outage of this node: the step in flight is retried from the run's
 * last committed state once the node answers again (worker/runner/node-restarts.ts).
 */
export const nodeRestartSettingsSchema = z
  .object({
    stepRetries: z
      .number()
      .int()
      .min(0)
      .max(20)
      .default(3)
      .describe("How many times a step is retried from the last committed state after this node restarted or stopped answering (0: fail at once)"),
    waitS: z
      .number()
      .int()
      .min(5)
      .max(7 * 24 * 3600)
      .default(600)
      .describe("How long a run waits for this node to answer again before it fails, in seconds"),
  })
  .strict();

export type NodeRestartSettings = z.infer<typeof nodeRestartSettingsSchema>;

/**
 * Loading trained checkpoints as LoRA adapters at runtime (OpenAI-compatible nodes: vLLM started with
 * --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True). The worker unpacks a checkpoint's archive
 * (from the Tinker node that holds it) into `adapterDir`, then asks the server to load it from
 * `serverAdapterDir` (the same directory as the server sees it) by POST /v1/load_lora_adapter.
 */
export const loraNodeSettingsSchema = z
  .object({
    adapterDir: z
      .string()
      .min(1)
      .max(1000)
      .refine((p) => p.startsWith("/"), "must be an absolute path")
      .nullable()
      .default(null)
      .describe("Directory the worker writes exported LoRA adapters into, one folder per checkpoint (unset: this node does not load checkpoints)"),
    serverAdapterDir: z
      .string()
      .min(1)
      .max(1000)
      .refine((p) => p.startsWith("/"), "must be an absolute path")
      .nullable()
      .default(null)
      .describe("The same directory as the inference server reads it, when it is mounted at another path there (unset: adapterDir)"),
  })
  .strict()
  .describe(
    "vLLM started with --enable-lora (and --max-lora-rank at least the runs' policy.loraRank) and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True evaluates a trained checkpoint as a LoRA adapter: the worker unpacks the checkpoint's archive into the adapter directory and loads it by POST /v1/load_lora_adapter",
  );
export type LoraNodeSettings = z.infer<typeof loraNodeSettingsSchema>;

export const nodeSettingsSchema = z
  .object({
    models: z
      .record(z.string().min(1).max(200), modelRenderSettingsSchema)
      .default({})
      .describe("Per-model rendering, keyed by the model name the run config uses (e.g. \"Qwen/Qwen3-8B\")"),
    tinker: z
      .object({
        server: z.enum(tinkerServerProfiles).default("auto").describe("Which Tinker-compatible server this node runs (loss semantics and quirks differ)"),
        futureDeadlineS: z
          .number()
          .int()
          .min(10)
          .max(7 * 24 * 3600)
          .default(7200)
          .describe("Longest wait for one operation's result (queueing included), in seconds, before the run fails"),
        maxLoraRank: z
          .number()
          .int()
          .min(1)
          .max(4096)
          .nullable()
          .default(null)
          .describe("Largest LoRA rank the server accepts when it does not advertise it (SkyRL JAX: its --backend-config max_lora_rank, default 32)"),
        wire: z
          .enum(["protobuf", "json"])
          .default("protobuf")
          .describe("forward_backward body encoding: protobuf (SDK 0.25, hosted Tinker, SkyRL tx) or json (servers of the JSON era)"),
      })
      .strict()
      .default({}),
    openai: openAINodeSettingsSchema.default({}),
    restarts: nodeRestartSettingsSchema.default({}),
    lora: loraNodeSettingsSchema.default({}),
  })
  .strict();

export type NodeSettings = z.infer<typeof nodeSettingsSchema>;

/** Parse stored settings; a malformed value names the node and the field. */
export function parseNodeSettings(nodeName: string, value: unknown): NodeSettings {
  const parsed = nodeSettingsSchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`node "${nodeName}": settings.${issue.path.join(".") || "(root)"}: ${issue.message}`);
}
