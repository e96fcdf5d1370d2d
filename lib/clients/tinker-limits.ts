/**
 * Limits some Tinker-compatible servers enforce without advertising them, so a run can be checked
 * before it starts instead of failing at create_model or running every sample to a context overflow.
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

/**
 * Context windows (max_position_embeddings of the published configs) of well-known models, for servers
 * that do not advertise max_context_length (SkyRL tx). The node setting tinker.contextLength wins.
 */
const KNOWN_CONTEXT: Array<[RegExp, number]> = [
  [/^Qwen\/Qwen3-.*-2507$/i, 262_144],
  [/^Qwen\/Qwen3-(0\.6B|1\.7B|4B|8B|14B|32B|30B-A3B|235B-A22B)(-Base)?$/i, 40_960],
  [/^meta-llama\/Llama-3\.[123]-/i, 131_072],
];

export function knownContextLength(model: string): number | null {
  for (const [re, n] of KNOWN_CONTEXT) if (re.test(model)) return n;
  return null;
}
