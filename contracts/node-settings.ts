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

export const nodeSettingsSchema = z
  .object({
    models: z
      .record(z.string().min(1).max(200), modelRenderSettingsSchema)
      .default({})
      .describe("Per-model rendering, keyed by the model name the run config uses (e.g. \"Qwen/Qwen3-8B\")"),
    tinker: z
      .object({
        server: z.enum(tinkerServerProfiles).default("auto").describe("Which Tinker-compatible server this node runs (loss semantics and quirks differ)"),
      })
      .strict()
      .default({}),
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
