/**
 * Per server profile: the objective each server computes from what the client sends (its documented
 * reduction, simulated here) equals the run's configured verl aggregation.
 */
import { describe, expect, it } from "vitest";
import type { LossAgg } from "../../contracts/run-config";
import type { LossConfig, OptimConfig, TrainingDatum } from "../engine/io";
import {
  type ServerProfile,
  aggregationWeights,
  uniformAggregationWeights,
  checkProfileAgainstReply,
  serverLossSemantics,
  unhonouredLossSettings,
  unhonouredOptimSettings,
} from "./loss-semantics";
import type { Datum } from "../../lib/clients/tinker-client";
import { lossFnConfig, prepareDatums, summarise } from "./tinker-policy";

const MODES: LossAgg[] = ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum"];
const PROFILES: ServerProfile[] = ["envace-embedded", "tinker", "skyrl-jax", "skyrl-train"];
const EMBEDDED_EXTENSIONS = new Set(["dual_clip_threshold", "kl_coef", "kl_type", "entropy_coef", "weights"]);

describe("aggregationWeights", () => {
  const mask = [
    [1, 1, 1, 0],
    [1, 1],
    [0, 0],
  ];
  it("token-mean: 1/Σmask on every masked-in token", () => {
    expect(aggregationWeights(mask, "token-mean")).toEqual([[0.2, 0.2, 0.2, 0], [0.2, 0.2], [0, 0]]);
  });
  it("seq-mean-token-mean: 1/(n·len_i), fully masked rows left out of n", () => {
    expect(aggregationWeights(mask, "seq-mean-token-mean")).toEqual([[1 / 6, 1 / 6, 1 / 6, 0], [0.25, 0.25], [0, 0]]);
  });
  it("seq-mean-token-sum: 1/n", () => {
    expect(aggregationWeights(mask, "seq-mean-token-sum")).toEqual([[0.5, 0.5, 0.5, 0], [0.5, 0.5], [0, 0]]);
  });
  it("a step with nothing masked in weighs nothing", () => {
    for (const mode of MODES) expect(aggregationWeights([[0, 0]], mode)).toEqual([[0, 0]]);
  });
  it("uniformAggregationWeights: one weight per row, bit-equal to every entry over all-ones masks", () => {
    const lengths = [3, 0, 1, 2000, 7, 13, 1, 999, 0, 4];
    for (const mode of MODES) {
      const full = aggregationWeights(lengths.map((n) => new Array<number>(n).fill(1)), mode);
      const perRow = uniformAggregationWeights(lengths, mode);
      lengths.forEach((n, i) => expect(full[i]).toEqual(new Array<number>(n).fill(perRow[i])));
    }
  });
});

// ------------------------------------------------------------------------------------------------
// A stand-in learner: log-probs, reference log-probs and entropies as functions of the token prefix
// (as a causal model's are), so they are the same in a packed datum as in the row it came from.

function hash(tokens: number[], salt: number): number {
  let h = 2166136261 ^ salt;
  for (const t of tokens) h = Math.imul(h ^ t, 16777619);
  return ((h >>> 0) % 10_000) / 10_000;
}
const learner = (prefixAndTarget: number[]) => -0.2 - 2 * hash(prefixAndTarget, 1);
const reference = (prefixAndTarget: number[]) => -0.2 - 2 * hash(prefixAndTarget, 2);
const entropyAt = (prefixAndTarget: number[]) => 3 * hash(prefixAndTarget, 3);

function ppo(ratio: number, A: number, dualClip: number | null, lo = 0.8, hi = 1.28): number {
  const l = Math.max(-A * ratio, -A * Math.min(Math.max(ratio, lo), hi));
  return dualClip !== null && A < 0 ? Math.min(l, -dualClip * A) : l;
}
const k3 = (logp: number, ref: number) => Math.min(Math.max(Math.exp(ref - logp) - (ref - logp) - 1, -10), 10);

/** verl's agg_loss written out loop by loop (independent of aggregationWeights). */
function verlAgg(loss: number[][], mode: LossAgg): number {
  const lens = loss.map((r) => r.length);
  const rows = lens.filter((n) => n > 0).length;
  const total = lens.reduce((a, b) => a + b, 0);
  if (mode === "token-mean") return loss.flat().reduce((a, b) => a + b, 0) / total;
  const perRow = loss.map((r) => r.reduce((a, b) => a + b, 0) / (mode === "seq-mean-token-mean" ? Math.max(r.length, 1) : 1));
  return perRow.reduce((a, b) => a + b, 0) / rows;
}

// Rows of a step: a two-turn conversation (turn 2's prompt contains turn 1, so the two pack into one
// datum), a row with a negative advantage and ratios past the dual clip, a zero-advantage row
// (dropped when no KL/entropy term is on), rows of different lengths.
const conv = [5, 6, 7, 8];
function rows(): TrainingDatum[] {
  const row = (promptTokens: number[], responseTokens: number[], A: number, logRatioShift: number[]): TrainingDatum => ({
    promptTokens,
    responseTokens,
    logprobs: responseTokens.map((_, j) => learner([...promptTokens, ...responseTokens.slice(0, j + 1)]) - logRatioShift[j % logRatioShift.length]),
    advantages: responseTokens.map(() => A),
    role: "act",
  });
  return [
    row(conv, [9, 10, 11], 0.7, [0.4, -0.5, 0.05]),
    row([...conv, 9, 10, 11, 12, 13], [14, 15], -0.6, [1.4, -0.4]),
    row([1, 2], [3, 4, 5, 6, 7, 8], -1.2, [1.6, 0.3, -0.6, 0.1]),
    row([20, 21, 22], [23], 0, [0.2]),
    row([30], [31, 32, 33, 34, 35, 36, 37, 38, 39], 1.5, [0.5, -0.1, 0.3]),
  ];
}

/** The configured objective, verl-style, from the rows (what every profile must reproduce). */
function configuredObjective(data: TrainingDatum[], loss: LossConfig, honoured: { dualClip: boolean; kl: boolean; entropy: boolean }): number {
  const pgRows: number[][] = [];
  const klRows: number[][] = [];
  const hRows: number[][] = [];
  for (const d of data) {
    const keys = d.responseTokens.map((_, j) => [...d.promptTokens, ...d.responseTokens.slice(0, j + 1)]);
    pgRows.push(keys.map((k, j) => ppo(Math.exp(learner(k) - d.logprobs[j]), d.advantages[j], honoured.dualClip ? loss.dualClip : null)));
    klRows.push(keys.map((k) => k3(learner(k), reference(k))));
    hRows.push(keys.map((k) => entropyAt(k)));
  }
  let objective = verlAgg(pgRows, loss.lossAgg);
  if (honoured.kl) objective += loss.klCoef * verlAgg(klRows, loss.lossAgg);
  if (honoured.entropy) objective -= loss.entropyCoef * verlAgg(hRows, loss.lossAgg);
  return objective;
}

/** What each server computes from the datums it receives (its source's reduction). */
function serverObjective(profile: ServerProfile, datums: Datum[], config: Record<string, number> | undefined): number {
  const B = datums.length;
  let total = 0;
  for (const d of datums) {
    const tokens = d.model_input.chunks.flatMap((c) => Array.from(c.tokens));
    const inp = d.loss_fn_inputs;
    let sum = 0;
    let wSum = 0;
    Array.from(inp.target_tokens.data).forEach((target, p) => {
      const key = [...tokens.slice(0, p + 1), target];
      const w = inp.weights ? inp.weights.data[p] : 1; // absent = 1 everywhere (SkyRL, Tinker)
      const ratio = Math.exp(learner(key) - inp.logprobs.data[p]);
      const A = inp.advantages.data[p];
      const lo = config?.clip_low_threshold ?? 0.8;
      const hi = config?.clip_high_threshold ?? 1.2;
      switch (profile) {
        case "tinker": // Σ ppo, weights unused by the RL losses
          sum += ppo(ratio, A, null, lo, hi);
          break;
        case "skyrl-train": // (loss · loss_mask).sum(), loss_mask = weights
        case "skyrl-jax": // weights · loss per token, then / Σweights per datum, mean over datums
          sum += w * ppo(ratio, A, null, lo, hi);
          break;
        case "envace-embedded":
          sum += ppo(ratio, A, config?.dual_clip_threshold ?? null, lo, hi);
          if (config?.kl_coef) sum += config.kl_coef * w * k3(learner(key), reference(key));
          if (config?.entropy_coef) sum -= config.entropy_coef * w * entropyAt(key);
          break;
      }
      wSum += w;
    });
    total += profile === "skyrl-jax" ? sum / Math.max(wSum, 1e-9) / B : sum;
  }
  return total;
}

const LOSS: LossConfig = {
  loss: "ppo",
  clipLow: 0.2,
  clipHigh: 0.28,
  dualClip: 3,
  klCoef: 0.05,
  klType: "low_var_kl",
  entropyCoef: 0.02,
  lossAgg: "token-mean",
  recomputeLogprobs: false,
};

describe("per-server loss semantics", () => {
  for (const profile of PROFILES) {
    for (const lossAgg of MODES) {
      for (const regularised of [true, false]) {
        it(`${profile}, ${lossAgg}${regularised ? ", with KL and entropy" : ""}: the server's objective is the configured one`, () => {
          const sem = serverLossSemantics(profile, profile === "envace-embedded" ? EMBEDDED_EXTENSIONS : new Set());
          const loss = { ...LOSS, lossAgg, klCoef: regularised ? 0.05 : 0, entropyCoef: regularised ? 0.02 : 0 };
          const data = rows();
          const { datums } = prepareDatums(data, loss, sem);
          // The savings happened: the conversation packed, and (unregularised) the zero row dropped.
          expect(datums.length).toBe(regularised && sem.kl ? 4 : 3);
          const want = configuredObjective(data, loss, { dualClip: sem.dualClip, kl: sem.kl && regularised, entropy: sem.entropy && regularised });
          const got = serverObjective(profile, datums, lossFnConfig(loss, sem));
          // Datum values are float32 (the wire's precision): equal to float32 rounding.
          expect(got).toBeCloseTo(want, 6);
          // The aggregation matters: another mode gives another objective on these rows.
          const other = configuredObjective(data, { ...loss, lossAgg: MODES[(MODES.indexOf(lossAgg) + 1) % 3] }, { dualClip: sem.dualClip, kl: false, entropy: false });
          expect(Math.abs(other - want)).toBeGreaterThan(1e-3);
        });
      }
    }
  }

  it("the dual clip is active on these rows (so the embedded node's objective depends on it)", () => {
    const data = rows();
    const withDual = configuredObjective(data, LOSS, { dualClip: true, kl: false, entropy: false });
    const without = configuredObjective(data, LOSS, { dualClip: false, kl: false, entropy: false });
    expect(Math.abs(withDual - without)).toBeGreaterThan(1e-3);
  });

  it("sends SkyRL only the loss_fn_config keys it accepts, and the embedded node its extensions", () => {
    for (const profile of ["tinker", "skyrl-jax", "skyrl-train"] as const) {
      expect(Object.keys(lossFnConfig(LOSS, serverLossSemantics(profile))!).sort()).toEqual(["clip_high_threshold", "clip_low_threshold"]);
      expect(lossFnConfig({ ...LOSS, loss: "importance_sampling" }, serverLossSemantics(profile))).toBeUndefined();
    }
    const embedded = serverLossSemantics("envace-embedded", EMBEDDED_EXTENSIONS);
    expect(lossFnConfig({ ...LOSS, klType: "k2" }, embedded)).toEqual({
      clip_low_threshold: 0.8,
      clip_high_threshold: 1.28,
      dual_clip_threshold: 3,
      kl_coef: 0.05,
      kl_type: 2,
      entropy_coef: 0.02,
    });
    // useKl off (klCoef 0) sends no KL term at all.
    expect(lossFnConfig({ ...LOSS, klCoef: 0, entropyCoef: 0 }, embedded)).toEqual({ clip_low_threshold: 0.8, clip_high_threshold: 1.28, dual_clip_threshold: 3 });
  });

  it("names every setting a server cannot honour", () => {
    const keys = (p: ServerProfile, loss: LossConfig = LOSS) => unhonouredLossSettings(serverLossSemantics(p, p === "envace-embedded" ? EMBEDDED_EXTENSIONS : new Set()), loss).map((w) => w.key);
    expect(keys("envace-embedded")).toEqual([]);
    expect(keys("tinker")).toEqual(["dualClip", "kl", "entropy", "clip"]);
    expect(keys("tinker", { ...LOSS, clipHigh: 0.2, klCoef: 0, entropyCoef: 0 })).toEqual(["dualClip"]);
    expect(keys("skyrl-jax")).toEqual(["dualClip", "kl", "entropy"]);
    expect(unhonouredLossSettings(serverLossSemantics("skyrl-train"), LOSS).find((w) => w.key === "kl")!.message).toMatch(/use_kl_loss/);
    // An embedded node without the kl_type extension honours only low_var_kl.
    const old = serverLossSemantics("envace-embedded", new Set(["dual_clip_threshold", "kl_coef", "entropy_coef", "weights"]));
    expect(unhonouredLossSettings(old, { ...LOSS, klType: "k1" }).map((w) => w.key)).toEqual(["klType"]);
    const optim: OptimConfig = { lr: 1e-6, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, gradClip: 1 };
    expect(unhonouredOptimSettings(serverLossSemantics("tinker"), optim)).toEqual([]);
    expect(unhonouredOptimSettings(serverLossSemantics("skyrl-jax"), optim).map((w) => w.key)).toEqual(["gradClip"]);
    expect(unhonouredOptimSettings(serverLossSemantics("skyrl-train"), optim).map((w) => w.key)).toEqual(["gradClip", "adam"]);
  });
});

describe("server profile check", () => {
  it("catches a SkyRL-Train server taken for the JAX backend on its first reply", () => {
    expect(checkProfileAgainstReply("skyrl-jax", {})).toBeNull();
    expect(checkProfileAgainstReply("skyrl-jax", { "total_loss:sum": 1.5, "pg_loss:sum": 1.5 })).toMatch(/set this node's server profile to skyrl-train/);
    expect(checkProfileAgainstReply("tinker", { "total_loss:sum": 1 })).toBeNull();
  });
});

describe("summarise", () => {
  const sent: Datum[] = [
    { model_input: { chunks: [{ type: "encoded_text", tokens: [1, 2] }] }, loss_fn_inputs: { target_tokens: { data: [2, 3], dtype: "int64" }, weights: { data: [0, 1], dtype: "float32" }, advantages: { data: [0, 1], dtype: "float32" }, logprobs: { data: [0, -1], dtype: "float32" } } },
    { model_input: { chunks: [{ type: "encoded_text", tokens: [4, 5, 6] }] }, loss_fn_inputs: { target_tokens: { data: [5, 6, 7], dtype: "int64" }, weights: { data: [0, 1, 1], dtype: "float32" }, advantages: { data: [0, 1, 1], dtype: "float32" }, logprobs: { data: [0, -1, -1], dtype: "float32" } } },
  ];
  const el = (a: number[], b: number[]) => [{ elementwise_loss: { data: a, dtype: "float32" as const } }, { elementwise_loss: { data: b, dtype: "float32" as const } }];

  it("SkyRL JAX reports no metrics: the loss comes from elementwise_loss under its reduction", () => {
    const m = summarise({ loss_fn_output_type: "scalar", loss_fn_outputs: el([0, -2], [0, -1, -3]), metrics: {} }, sent, serverLossSemantics("skyrl-jax"), 3);
    expect(m.loss).toBeCloseTo((-2 / 1 + -4 / 2) / 2, 12);
    expect(m.pg_loss).toBe(m.loss);
    expect(m.tokens).toBe(3);
  });

  it("SkyRL-Train's total_loss:sum, the embedded node's loss:sum and parts; never NaN", () => {
    expect(summarise({ loss_fn_output_type: "scalar", loss_fn_outputs: [{}, {}], metrics: { "total_loss:sum": 0.5, "pg_loss:sum": 0.4 } }, sent, serverLossSemantics("skyrl-train"), 3)).toEqual({ tokens: 3, loss: 0.5, pg_loss: 0.4 });
    const embedded = summarise(
      {
        loss_fn_output_type: "scalar",
        loss_fn_outputs: [],
        metrics: { "loss:sum": 0.3, "pg_loss:sum": 0.35, "kl_loss:sum": 0.01, "entropy_loss:sum": 1.2, "clipped:sum": 1, "dual_clipped:sum": 2, "ratio:sum": 4, "kl:sum": 0.2, "entropy:sum": 4, "tokens:sum": 4 },
      },
      sent,
      serverLossSemantics("envace-embedded", EMBEDDED_EXTENSIONS),
      3,
    );
    expect(embedded).toEqual({ tokens: 3, loss: 0.3, pg_loss: 0.35, kl_loss: 0.01, entropy_loss: 1.2, clip_frac: 0.25, dual_clip_frac: 0.5, ratio_mean: 1, kl: 0.05, entropy: 1 });
    const nothing = summarise({ loss_fn_output_type: "scalar", loss_fn_outputs: [{}, {}], metrics: {} }, sent, serverLossSemantics("tinker"), 3);
    expect(nothing).toEqual({ tokens: 3 });
  });
});
