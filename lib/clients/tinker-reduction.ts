/**
 * How each Tinker-compatible server reduces a forward_backward's per-token policy losses, as its source
 * defines it (worker/clients/loss-semantics.ts builds the run's loss on it; the node doctor's loss-scale
 * check measures it on the node itself, lib/node-doctor/loss-scale.ts):
 * - "token-sum": Σ over every datum and token of the token loss (the embedded node, hosted Tinker,
 *   SkyRL-Train's (loss · weights).sum()); a call split into chunks sums to the same value;
 * - "per-datum-mean": SkyRL JAX (skyrl/backends/jax.py) divides each datum's sum by the sum of its
 *   weights and averages the accumulated datums.
 */
import type { ResolvedProfile } from "./tinker-profile";

export type ServerReduction = "token-sum" | "per-datum-mean";

export function serverReduction(profile: ResolvedProfile): ServerReduction {
  return profile === "skyrl-jax" ? "per-datum-mean" : "token-sum";
}
