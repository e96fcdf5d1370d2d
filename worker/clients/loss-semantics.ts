/**
 * How the run's loss reaches each Tinker-compatible server exactly (see README.md, "Loss
 * normalisation").
 *
 * The run configures verl's aggregation (`optim.lossAgg`). Tinker-protocol losses are token SUMS
 * (tinker-protocol.md §3), so the aggregation is expressed as per-token weights w
 * (`aggregationWeights`): Σ w·ℓ equals verl's agg_loss(ℓ, mask, mode). The weights reach the PG
 * term through the advantages (the PPO/IS per-token loss is positively homogeneous in A, dual clip
 * included: worker/node/loss.ts) and the KL/entropy terms through `weights`, where the server has
 * them. Servers reduce differently; `serverLossSemantics` says how, and `applyServerReduction`
 * undoes the difference so that the objective is the configured one on every server.
 */
import type { LossAgg } from "../../contracts/run-config";
import type { ResolvedProfile } from "../../lib/clients/tinker-profile";
import { serverReduction } from "../../lib/clients/tinker-reduction";
import type { LossConfig, OptimConfig } from "../engine/io";
import type { Datum } from "../../lib/clients/tinker-client";

/**
 * Per-token weights w with Σ_ij w_ij·ℓ_ij = verl agg_loss(ℓ, mask, mode), over all the rows of one
 * update (the step's rows: compute them before any chunking):
 *   token-mean           mask_ij / Σ mask
 *   seq-mean-token-mean  mask_ij / (n · Σ_j mask_ij)
 *   seq-mean-token-sum   mask_ij / n
 * with n the number of rows that have at least one masked-in token (verl leaves fully masked rows
 * out of the mean). A step with no masked-in token gets all-zero weights.
 */
export function aggregationWeights(mask: ReadonlyArray<ReadonlyArray<number>>, mode: LossAgg): number[][] {
  const rowSums = mask.map((row) => row.reduce((a, b) => a + b, 0));
  const total = rowSums.reduce((a, b) => a + b, 0);
  const rows = rowSums.filter((s) => s > 0).length;
  return mask.map((row, i) => {
    const d = divisor(mode, total, rows, rowSums[i]!);
    return row.map((m) => (m === 0 ? 0 : m / d));
  });
}

/** What a masked-in token's mask value is divided by, in a row of mask sum `rowSum` (see aggregationWeights). */
function divisor(mode: LossAgg, total: number, rows: number, rowSum: number): number {
  switch (mode) {
    case "token-mean":
      return total;
    case "seq-mean-token-mean":
      return rows * rowSum;
    case "seq-mean-token-sum":
      return rows;
  }
}

/**
 * aggregationWeights over all-ones masks of these row lengths (every response token counts), as one
 * weight per row: the same divisions on the same numbers, so each row's weight is bit-equal to every
 * entry of that row there — without a million-entry array of arrays (a paper-scale step).
 */
export function uniformAggregationWeights(lengths: readonly number[], mode: LossAgg): number[] {
  let total = 0;
  let rows = 0;
  for (const n of lengths) {
    total += n;
    if (n > 0) rows++;
  }
  return lengths.map((n) => 1 / divisor(mode, total, rows, n));
}

/** A resolved server profile: the client detects it once (lib/clients/tinker-profile.ts). */
export type ServerProfile = ResolvedProfile;

/** What a server does with a forward_backward call, as its source defines it. */
export interface ServerLossSemantics {
  profile: ServerProfile;
  /**
   * The `weights` loss input sent with ppo/importance_sampling datums: the aggregation weights (the
   * embedded node multiplies its KL/entropy terms by them), the response mask (SkyRL JAX divides by
   * their per-datum sum), or none (hosted Tinker and SkyRL-Train: absent = 1 everywhere, and the
   * prompt positions carry A = 0).
   */
  weights: "aggregation" | "mask" | "none";
  /**
   * SkyRL JAX (skyrl/backends/jax.py): each datum's summed token loss is divided by the sum of its
   * weights, and the gradients of all datums accumulated before optim_step are averaged.
   */
  perDatumMean: boolean;
  dualClip: boolean;
  kl: boolean;
  /** KL estimators other than low_var_kl (the embedded node's `kl_type` extension). */
  klTypes: boolean;
  entropy: boolean;
  /** optim_step's grad_clip_norm. */
  gradClip: boolean;
  /** optim_step's beta1, beta2, eps and weight_decay (SkyRL-Train fixes them when the model is created). */
  adamHyperparams: boolean;
}

export function serverLossSemantics(profile: ServerProfile, extensions: ReadonlySet<string> = new Set()): ServerLossSemantics {
  switch (profile) {
    case "envace-embedded":
      return {
        profile,
        weights: extensions.has("weights") ? "aggregation" : "none",
        perDatumMean: serverReduction(profile) === "per-datum-mean",
        dualClip: extensions.has("dual_clip_threshold"),
        kl: extensions.has("kl_coef") && extensions.has("weights"),
        klTypes: extensions.has("kl_type"),
        entropy: extensions.has("entropy_coef") && extensions.has("weights"),
        gradClip: true,
        adamHyperparams: true,
      };
    case "tinker":
      // Hosted Tinker: plain token sums, AdamW with grad_clip_norm (tinker-protocol.md §1.5, §3).
      return { profile, weights: "none", perDatumMean: serverReduction(profile) === "per-datum-mean", dualClip: false, kl: false, klTypes: false, entropy: false, gradClip: true, adamHyperparams: true };
    case "skyrl-jax":
      // skyrl/tinker/loss_fns.py multiplies each token's loss by its weight; skyrl/backends/jax.py
      // divides each datum's sum by Σ weights and averages over the accumulated datums. Its AdamParams
      // model has no grad_clip_norm (pydantic drops it).
      return { profile, weights: "mask", perDatumMean: serverReduction(profile) === "per-datum-mean", dualClip: false, kl: false, klTypes: false, entropy: false, gradClip: false, adamHyperparams: true };
    case "skyrl-train":
      // skyrl/backends/skyrl_train_backend.py maps ppo to SkyRL-Train's "regular" loss reduced as
      // (loss · weights).sum(); KL/entropy and grad clipping come from the server's own config, and
      // optim_step sends only the learning rate on.
      return { profile, weights: "none", perDatumMean: serverReduction(profile) === "per-datum-mean", dualClip: false, kl: false, klTypes: false, entropy: false, gradClip: false, adamHyperparams: false };
  }
}

/**
 * After the first forward_backward under an assumed profile: SkyRL-Train reports `total_loss:sum` /
 * `pg_loss:sum`, the JAX backend reports no metrics. A mismatch means the advantages were scaled for
 * the wrong reduction, so the step must not be applied.
 */
export function checkProfileAgainstReply(profile: ServerProfile, metrics: Record<string, number>): string | null {
  const looksLikeSkyrlTrain = "total_loss:sum" in metrics || ("pg_loss:sum" in metrics && !("loss:sum" in metrics));
  if (profile === "skyrl-jax" && looksLikeSkyrlTrain) {
    return "the server answered forward_backward as SkyRL-Train (FSDP/Megatron) does, not as the JAX backend that was assumed; set this node's server profile to skyrl-train and resume the run";
  }
  return null;
}

/**
 * Rescales the advantages of the datums about to be sent (after dropping and packing, over the
 * whole step) for a server that averages per datum: on SkyRL JAX the objective is
 * (1/B)·Σ_k Σ_j m_kj·ℓ(A'_kj) / W_k with W_k = Σ_j m_kj, so A'_kj = A_kj·w_kj·B·W_k makes it
 * Σ_kj w_kj·ℓ(A_kj), the configured aggregation (homogeneity again). Returns new datums.
 */
export function applyServerReduction(datums: Datum[], sem: ServerLossSemantics): Datum[] {
  if (!sem.perDatumMean) return datums;
  const B = datums.length;
  return datums.map((d) => {
    const weights = d.loss_fn_inputs.weights?.data;
    if (!weights) throw new Error("a per-datum-mean server needs the response mask as weights");
    let W = 0;
    for (let i = 0; i < weights.length; i++) W += weights[i];
    const factor = W > 0 ? B * W : 0;
    return {
      ...d,
      loss_fn_inputs: { ...d.loss_fn_inputs, advantages: { ...d.loss_fn_inputs.advantages, data: scaled(d.loss_fn_inputs.advantages.data, factor) } },
    };
  });
}

/** A copy of `values` times `factor`, in the same kind of array (typed arrays stay typed). */
function scaled(values: Datum["loss_fn_inputs"][string]["data"], factor: number): Datum["loss_fn_inputs"][string]["data"] {
  const out = values.slice();
  for (let i = 0; i < out.length; i++) out[i] *= factor;
  return out;
}

/** One warning per setting the server cannot honour (the caller logs each once per run). */
export function unhonouredLossSettings(sem: ServerLossSemantics, loss: LossConfig): Array<{ key: string; message: string }> {
  const out: Array<{ key: string; message: string }> = [];
  const on = `on this node (server profile ${sem.profile})`;
  if (loss.loss === "ppo" && !sem.dualClip) out.push({ key: "dualClip", message: `no dual clip ${on}: optim.dualClip is ignored, the PPO loss is clipped on both sides only` });
  if (loss.klCoef !== 0 && !sem.kl) {
    out.push({
      key: "kl",
      message:
        sem.profile === "skyrl-train"
          ? `the KL term cannot be set by the client ${on}: optim.useKl/klCoef are ignored (SkyRL-Train applies its own trainer.algorithm.use_kl_loss)`
          : `no KL term ${on}: optim.useKl/klCoef are ignored`,
    });
  } else if (loss.klCoef !== 0 && loss.klType !== "low_var_kl" && !sem.klTypes) {
    out.push({ key: "klType", message: `only the low_var_kl estimator ${on}: optim.klType ${loss.klType} is ignored` });
  }
  if (loss.entropyCoef !== 0 && !sem.entropy) out.push({ key: "entropy", message: `no entropy term ${on}: optim.entropyCoef is ignored` });
  if (sem.profile === "tinker" && loss.loss === "ppo" && (loss.clipLow !== 0.2 || loss.clipHigh !== 0.2)) {
    out.push({ key: "clip", message: `hosted Tinker documents its PPO clip as fixed at 0.2: optim.clipLow/clipHigh (${loss.clipLow}/${loss.clipHigh}) may be ignored` });
  }
  return out;
}

export function unhonouredOptimSettings(sem: ServerLossSemantics, optim: OptimConfig): Array<{ key: string; message: string }> {
  const out: Array<{ key: string; message: string }> = [];
  const on = `on this node (server profile ${sem.profile})`;
  if (optim.gradClip > 0 && !sem.gradClip) out.push({ key: "gradClip", message: `optim_step has no gradient clipping ${on}: optim.gradClip ${optim.gradClip} is ignored` });
  if (!sem.adamHyperparams) out.push({ key: "adam", message: `AdamW's betas, eps and weight decay are fixed by the server's own config ${on}: only optim.lr is applied` });
  return out;
}
