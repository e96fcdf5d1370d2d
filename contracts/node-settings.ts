/**
 * Per-node settings, stored as `node.settings` (JSON) and validated with this schema wherever they
 * are read or written (API input, the worker reading them back). One schema, extended section by
 * section: how prompts are rendered for the node's models, client limits, vendor extras.
 * `{}` parses to the defaults.
 */
import { z } from "zod";

export const nodeSettingsSchema = z
  .object({})
  .strict();

export type NodeSettings = z.infer<typeof nodeSettingsSchema>;

/** Parse stored settings; a malformed value names the node and the field. */
export function parseNodeSettings(nodeName: string, value: unknown): NodeSettings {
  const parsed = nodeSettingsSchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`node "${nodeName}": settings.${issue.path.join(".") || "(root)"}: ${issue.message}`);
}
