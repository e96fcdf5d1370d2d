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

export const nodeSettingsSchema = z
  .object({
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
