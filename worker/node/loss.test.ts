/**
 * Closed-form checks of the per-token loss (loss.ts) against values worked out by hand, at ratios
 * ≠ 1 and with both advantage signs, so that swapping max/min, flipping a sign, applying the dual
 * clip to positive advantages, reversing the KL or dropping a term each fails here.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as tf from "@tensorflow/tfjs";
import { ensureBackend } from "./model";
import { type TokenLossSettings, importanceRatio, klTokenPenalty, numberOps, policyGradientTokenLoss, tokenLoss } from "./loss";
import { tensorOps } from "./train";

// ε_low 0.2, ε_high 0.28 (asymmetric, so swapped bounds show), dual clip c = 3.
const PPO: TokenLossSettings = { kind: "ppo", clipLowThreshold: 0.8, clipHighThreshold: 1.28, dualClip: 3, klCoef: 0, klType: "low_var_kl", entropyCoef: 0 };
const pg = (logRatio: number, A: number, s: Partial<TokenLossSettings> = {}) => policyGradientTokenLoss(numberOps, Math.exp(logRatio), A, { ...PPO, ...s });

describe("PPO clip, dual clip", () => {
  it("A > 0, ratio above 1 + ε_high: the clipped term wins (−1.28·A)", () => {
    const r = pg(0.5, 1); // ratio 1.6487
    expect(r.loss).toBeCloseTo(-1.28, 12);
    expect(r.clipped).toBe(1);
    expect(r.dualClipped).toBe(0);
  });

  it("A > 0, ratio below 1 − ε_low: not clipped (the pessimistic bound keeps −ratio·A)", () => {
    const r = pg(-0.5, 2); // ratio 0.6065
    expect(r.loss).toBeCloseTo(-2 * 0.6065306597126334, 12);
    expect(r.clipped).toBe(0);
  });

  it("A < 0, ratio below 1 − ε_low: the clipped term wins (−0.8·A)", () => {
    const r = pg(-0.5, -1);
    expect(r.loss).toBeCloseTo(0.8, 12);
    expect(r.clipped).toBe(1);
    expect(r.dualClipped).toBe(0);
  });

  it("A < 0, ratio above c: the dual clip caps the loss at −c·A", () => {
    const r = pg(1.5, -1); // ratio 4.4817: unclipped −r·A = 4.4817 > 3
    expect(r.loss).toBeCloseTo(3, 12);
    expect(r.dualClipped).toBe(1);
    // Without the dual clip the loss is −ratio·A.
    expect(pg(1.5, -1, { dualClip: null }).loss).toBeCloseTo(4.4816890703380645, 12);
  });

  it("A < 0, ratio between 1 + ε_high and c: neither clip acts", () => {
    const r = pg(0.7, -0.5); // ratio 2.0138, −r·A = 1.0069 < 1.5
    expect(r.loss).toBeCloseTo(0.5 * 2.0137527074704766, 12);
    expect(r.clipped).toBe(0);
    expect(r.dualClipped).toBe(0);
  });

  it("the dual clip never applies to positive advantages", () => {
    // A > 0 and a ratio above c: with the cap applied to A > 0 the loss would be min(−3, −1.28) = −3.
    expect(pg(1.5, 1).loss).toBeCloseTo(-1.28, 12);
    expect(pg(1.5, 1).dualClipped).toBe(0);
  });

  it("inside the trust region the loss is −ratio·A for either sign", () => {
    expect(pg(0.1, -2).loss).toBeCloseTo(2 * 1.1051709180756477, 12);
    expect(pg(-0.1, 3).loss).toBeCloseTo(-3 * 0.9048374180359595, 12);
  });

  it("importance sampling is −ratio·A without any clip", () => {
    expect(pg(1.5, -1, { kind: "importance_sampling" }).loss).toBeCloseTo(4.4816890703380645, 12);
    expect(pg(0.5, 2, { kind: "importance_sampling" }).loss).toBeCloseTo(-2 * 1.6487212707001282, 12);
  });

  it("the log-ratio is clamped to ±20 before exponentiating, as verl does", () => {
    expect(importanceRatio(numberOps, -1, -26)).toBe(Math.exp(20));
    expect(importanceRatio(numberOps, -26, -1)).toBe(Math.exp(-20));
    expect(importanceRatio(numberOps, -1, -1.5)).toBeCloseTo(1.6487212707001282, 12);
  });

  it("is positively homogeneous in A, clip and dual-clip decisions included", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    for (let i = 0; i < 2000; i++) {
      const logRatio = rand() * 2.5;
      const A = rand() * 3;
      const s = Math.exp(rand() * 6);
      for (const settings of [{}, { dualClip: null }, { kind: "importance_sampling" as const }]) {
        const base = pg(logRatio, A, settings);
        const scaled = pg(logRatio, s * A, settings);
        expect(scaled.loss).toBeCloseTo(s * base.loss, 9);
        expect(scaled.clipped).toBe(base.clipped);
        expect(scaled.dualClipped).toBe(base.dualClipped);
      }
      expect(pg(logRatio, 0 * A).loss).toBeCloseTo(0, 15);
    }
  });
});

describe("KL estimators (logp = −1, ref = −1.5)", () => {
  const kl = (type: TokenLossSettings["klType"], logp = -1, ref = -1.5) => klTokenPenalty(numberOps, logp, ref, type);
  it("k1 = logp − ref", () => expect(kl("k1")).toBeCloseTo(0.5, 12));
  it("k2 = ½(logp − ref)²", () => expect(kl("k2")).toBeCloseTo(0.125, 12));
  it("low_var_kl = e^d − d − 1 with d = ref − logp", () => {
    expect(kl("low_var_kl")).toBeCloseTo(Math.exp(-0.5) + 0.5 - 1, 12); // 0.10653; reversed it would be 0.14872
    expect(kl("low_var_kl", -1.5, -1)).toBeCloseTo(Math.exp(0.5) - 0.5 - 1, 12);
  });
  it("low_var_kl is clamped to [−10, 10] (and its log-ratio to ±20)", () => {
    expect(kl("low_var_kl", -1, -20)).toBe(10); // e^−19 + 19 − 1 = 18
    expect(kl("low_var_kl", -40, -1)).toBe(10);
  });
});

describe("tokenLoss: weights, KL and entropy terms", () => {
  const x = { logprobs: -1, oldLogprobs: -1.5, advantages: 0.25 * 2, weights: 0.25, refLogprobs: -1.5, entropy: 2 };
  it("total = pg(w·A) + klCoef·w·kl − entropyCoef·w·H", () => {
    const t = tokenLoss(numberOps, x, { ...PPO, klCoef: 0.1, klType: "k1", entropyCoef: 0.3 });
    const pgValue = -0.5 * 1.28; // ratio e^0.5 clipped at 1.28, A·w = 0.5
    expect(t.pg).toBeCloseTo(pgValue, 12);
    expect(t.kl).toBeCloseTo(0.25 * 0.5, 12);
    expect(t.entropy).toBeCloseTo(0.25 * 2, 12);
    expect(t.total).toBeCloseTo(pgValue + 0.1 * 0.125 - 0.3 * 0.5, 12);
  });
  it("the entropy bonus lowers the loss; a zero coefficient leaves the KL and entropy out of the total", () => {
    const bonus = tokenLoss(numberOps, { ...x, advantages: 0 }, { ...PPO, entropyCoef: 0.1 });
    expect(bonus.total).toBeCloseTo(-0.1 * 0.25 * 2, 12);
    const none = tokenLoss(numberOps, x, PPO);
    expect(none.total).toBe(none.pg);
    expect(none.kl).toBeCloseTo(0.25 * (Math.exp(-0.5) + 0.5 - 1), 12); // still reported
  });
  it("cross_entropy is −w·logp", () => {
    expect(tokenLoss(numberOps, x, { ...PPO, kind: "cross_entropy" }).pg).toBeCloseTo(0.25, 12);
  });
  it("refuses a KL or entropy coefficient without its input", () => {
    expect(() => tokenLoss(numberOps, { ...x, refLogprobs: undefined }, { ...PPO, klCoef: 0.1 })).toThrow(/reference/);
    expect(() => tokenLoss(numberOps, { ...x, entropy: undefined }, { ...PPO, entropyCoef: 0.1 })).toThrow(/entropy/);
  });
});

describe("the same function on tensors", () => {
  beforeAll(async () => {
    await ensureBackend("wasm");
  });
  it("agrees with the numbers, token by token", () => {
    const logRatios = [0.5, -0.5, -0.5, 1.5, 0.7, 0.1, 1.5];
    const As = [1, 2, -1, -1, -0.5, -2, 1];
    const w = [0.5, 0.25, 1, 0.2, 0.1, 0.3, 0.6];
    const ref = [-1.2, -0.1, -3, -0.5, -2, -1, -0.7];
    const H = [1, 2, 0.5, 0.1, 3, 1.5, 0.2];
    const logp = logRatios.map((r, i) => -1 - 0.1 * i + 0);
    const old = logp.map((l, i) => l - logRatios[i]);
    for (const klType of ["k1", "k2", "low_var_kl"] as const) {
      const s = { ...PPO, klCoef: 0.2, klType, entropyCoef: 0.05 };
      const expected = logp.map((l, i) => tokenLoss(numberOps, { logprobs: l, oldLogprobs: old[i], advantages: As[i] * w[i], weights: w[i], refLogprobs: ref[i], entropy: H[i] }, s).total);
      const got = tf.tidy(() => {
        const t = (v: number[]) => tf.tensor1d(v);
        return tokenLoss(tensorOps, { logprobs: t(logp), oldLogprobs: t(old), advantages: t(As.map((a, i) => a * w[i])), weights: t(w), refLogprobs: t(ref), entropy: t(H) }, s).total.arraySync() as number[];
      });
      got.forEach((g, i) => expect(g).toBeCloseTo(expected[i], 5));
    }
  });
});
