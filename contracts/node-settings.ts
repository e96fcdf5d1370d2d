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
