/**
 * Limits some Tinker-compatible servers enforce without advertising them, so a run can be checked
 * before it starts instead of failing at create_model. (Context windows come from the node model's
 * settings and renderer: lib/renderers, contracts/node-settings.ts `models`.)
 */
import type { ServerCapabilities } from "./tinker-wire";
import type { ResolvedProfile } from "./tinker-client";

/** SkyRL tx's JAX backend: `max_lora_rank` defaults to 32 (skyrl/backends/jax.py), and get_server_capabilities does not say. */
export const SKYRL_JAX_DEFAULT_MAX_LORA_RANK = 32;

/**
 * The largest LoRA rank a node accepts: the node setting when given, else what the server tells
 * (the embedded node), else the server family's default; null = no known limit (the server decides).
 */
export function loraRankLimit(profile: ResolvedProfile, caps: ServerCapabilities, override?: number | null): number | null {
  if (override !== undefined && override !== null) return override;
  if (caps.node?.max_lora_rank !== undefined) return caps.node.max_lora_rank;
  if (profile === "skyrl-jax") return SKYRL_JAX_DEFAULT_MAX_LORA_RANK;
  return null;
}
