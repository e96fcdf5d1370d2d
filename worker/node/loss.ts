/**
 * The policy loss, token by token: ONE definition, written once over a small algebra so that the
 * embedded node trains with it on tfjs tensors (differentiated, float32) and `npm run loss:eval`
 * evaluates it on plain numbers (float64).
 *
 * It follows verl (volcengine/verl, verl/trainer/ppo/core_algos.py: compute_policy_loss_vanilla,
 * kl_penalty; combined as in workers/actor/dp_actor.py update_policy), which the EnvACE reference
 * trains with:
 *
 *   ratio   = exp(clamp(logp − old, −20, 20))
 *   pg      = max(−A·ratio, −A·clamp(ratio, lo, hi))             PPO clip on both sides
 *             and, for A < 0 only, min(that, −c·A)                 dual clip (c = null: off)
 *   kl      k1: logp − ref   k2: ½(logp − ref)²   low_var_kl: clamp(e^d − d − 1, −10, 10), d = clamp(ref − logp, −20, 20)
 *   loss    = Σ pg(A·w) + klCoef·Σ w·kl − entropyCoef·Σ w·H
 *
 * Aggregation (verl's loss_agg_mode) is expressed as per-token weights w (the client computes them,
 * worker/clients/loss-semantics.ts). The PG term receives them inside the advantages: pg is
 * positively homogeneous in A (pg(r, s·A) = s·pg(r, A) for s ≥ 0, dual clip included, since the
 * sign of A and every max/min are unchanged by a positive factor), so Σ pg(r, w·A) = Σ w·pg(r, A).
 * That is also how the aggregation reaches servers whose losses are plain token sums (Tinker).
 * The KL and entropy terms do not depend on A and are multiplied by w explicitly.
 *
 * The old verl copy vendored by the reference has no ±20 clamp on the log-ratio; the two agree
 * whenever |logp − old| ≤ 20 (beyond that the reference overflows).
 */

export type KlType = "k1" | "k2" | "low_var_kl";
export type PolicyLossKind = "cross_entropy" | "importance_sampling" | "ppo";

/** The operations the loss needs, on numbers or on tensors (elementwise, broadcasting scalars). */
export interface LossOps<T> {
  add(a: T, b: T): T;
  sub(a: T, b: T): T;
  mul(a: T, b: T): T;
  /** x · k for a plain number k. */
  scale(x: T, k: number): T;
  /** x + k for a plain number k. */
  shift(x: T, k: number): T;
  neg(x: T): T;
  exp(x: T): T;
  square(x: T): T;
  clip(x: T, lo: number, hi: number): T;
  max(a: T, b: T): T;
  min(a: T, b: T): T;
  /** ifNegative where cond < 0, otherwise elsewhere. */
  whereNegative(cond: T, ifNegative: T, otherwise: T): T;
  /** 1 where a > b, else 0. */
  greater(a: T, b: T): T;
}

/** Plain float64 numbers (loss:eval, tests). */
export const numberOps: LossOps<number> = {
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  scale: (x, k) => x * k,
  shift: (x, k) => x + k,
  neg: (x) => -x,
  exp: Math.exp,
  square: (x) => x * x,
  clip: (x, lo, hi) => Math.min(Math.max(x, lo), hi),
  max: Math.max,
  min: Math.min,
  whereNegative: (c, a, b) => (c < 0 ? a : b),
  greater: (a, b) => (a > b ? 1 : 0),
};

/** verl clamps the log-ratio (and k3's log-ratio) to ±20 before exponentiating. */
export const LOG_RATIO_CLAMP = 20;
/** verl clamps the low_var_kl estimate to ±10. */
export const LOW_VAR_KL_CLAMP = 10;

export interface PolicyLossSettings {
  kind: PolicyLossKind;
  /** Ratio bounds of the PPO clip: 1 − ε_low and 1 + ε_high (Tinker's clip_low/high_threshold). */
  clipLowThreshold: number;
  clipHighThreshold: number;
  /** verl clip_ratio_c for negative advantages; null = no dual clip. */
  dualClip: number | null;
}

export interface TokenLossSettings extends PolicyLossSettings {
  /** 0 = no KL term (verl: use_kl_loss false). */
  klCoef: number;
  klType: KlType;
  /** 0 = no entropy term. */
  entropyCoef: number;
}

export function importanceRatio<T>(ops: LossOps<T>, logprobs: T, oldLogprobs: T): T {
  return ops.exp(ops.clip(ops.sub(logprobs, oldLogprobs), -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP));
}

/** The policy-gradient loss of one token, with indicators for the clip metrics. */
export function policyGradientTokenLoss<T>(
  ops: LossOps<T>,
  ratio: T,
  advantages: T,
  s: PolicyLossSettings,
): { loss: T; clipped: T; dualClipped: T } {
  const unclipped = ops.neg(ops.mul(advantages, ratio));
  const zero = ops.scale(advantages, 0);
  if (s.kind === "importance_sampling") return { loss: unclipped, clipped: zero, dualClipped: zero };
  const clippedLoss = ops.neg(ops.mul(advantages, ops.clip(ratio, s.clipLowThreshold, s.clipHighThreshold)));
  const ppo = ops.max(unclipped, clippedLoss);
  const clipped = ops.greater(clippedLoss, unclipped);
  if (s.dualClip === null) return { loss: ppo, clipped, dualClipped: zero };
  const cap = ops.scale(advantages, -s.dualClip);
  return {
    loss: ops.whereNegative(advantages, ops.min(cap, ppo), ppo),
    clipped,
    dualClipped: ops.whereNegative(advantages, ops.greater(ppo, cap), zero),
  };
}

/** verl's kl_penalty estimators of KL(π ‖ π_ref), per token. */
export function klTokenPenalty<T>(ops: LossOps<T>, logprobs: T, refLogprobs: T, type: KlType): T {
  switch (type) {
    case "k1":
      return ops.sub(logprobs, refLogprobs);
    case "k2":
      return ops.scale(ops.square(ops.sub(logprobs, refLogprobs)), 0.5);
    case "low_var_kl": {
      const d = ops.clip(ops.sub(refLogprobs, logprobs), -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP);
      return ops.clip(ops.shift(ops.sub(ops.exp(d), d), -1), -LOW_VAR_KL_CLAMP, LOW_VAR_KL_CLAMP);
    }
  }
}

export interface TokenLossInputs<T> {
  /** The learner's log-probs of the target tokens. */
  logprobs: T;
  /** The log-probs the ratio is taken against (sampler's, or recomputed by the trainer). Unused by cross_entropy. */
  oldLogprobs: T;
  /** Advantages already multiplied by the aggregation weight w. Unused by cross_entropy. */
  advantages: T;
  /** The aggregation weight w of each token (0 off the response). */
  weights: T;
  /** The frozen reference model's log-probs; needed when klCoef ≠ 0. */
  refLogprobs?: T;
  /** The policy's entropy at each position; needed when entropyCoef ≠ 0. */
  entropy?: T;
}

export interface TokenLoss<T> {
  /** The token's contribution to the loss that is differentiated. */
  total: T;
  /** Its parts, each already weighted: pg(w·A) (cross_entropy: −w·logp), w·kl, w·H. */
  pg: T;
  kl: T | null;
  entropy: T | null;
  /** Unweighted per-token values for diagnostics. */
  ratio: T | null;
  klEstimate: T | null;
  clipped: T | null;
  dualClipped: T | null;
}

/**
 * The loss of one token (elementwise over tensors). The KL and entropy parts are computed whenever
 * their inputs are given, and enter `total` only with a non-zero coefficient.
 */
export function tokenLoss<T>(ops: LossOps<T>, x: TokenLossInputs<T>, s: TokenLossSettings): TokenLoss<T> {
  let pg: T;
  let ratio: T | null = null;
  let clipped: T | null = null;
  let dualClipped: T | null = null;
  if (s.kind === "cross_entropy") {
    pg = ops.neg(ops.mul(x.weights, x.logprobs));
  } else {
    ratio = importanceRatio(ops, x.logprobs, x.oldLogprobs);
    const r = policyGradientTokenLoss(ops, ratio, x.advantages, s);
    pg = r.loss;
    clipped = r.clipped;
    dualClipped = r.dualClipped;
  }
  let total = pg;
  let kl: T | null = null;
  let klEstimate: T | null = null;
  if (x.refLogprobs !== undefined) {
    klEstimate = klTokenPenalty(ops, x.logprobs, x.refLogprobs, s.klType);
    kl = ops.mul(x.weights, klEstimate);
    if (s.klCoef !== 0) total = ops.add(total, ops.scale(kl, s.klCoef));
  } else if (s.klCoef !== 0) {
    throw new Error("the KL term needs the reference model's log-probs");
  }
  let entropy: T | null = null;
  if (x.entropy !== undefined) {
    entropy = ops.mul(x.weights, x.entropy);
    if (s.entropyCoef !== 0) total = ops.sub(total, ops.scale(entropy, s.entropyCoef));
  } else if (s.entropyCoef !== 0) {
    throw new Error("the entropy term needs the policy's entropy");
  }
  return { total, pg, kl, entropy, ratio, klEstimate, clipped, dualClipped };
}
