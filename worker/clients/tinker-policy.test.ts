import { afterAll, beforeAll, describe, expect, it } from "vitest";
import os from "node:os";
import path from "node:path";
import { promises as fs } from "node:fs";
import { startNode, type RunningNode } from "../node/server";
import { VOCAB_SIZE } from "../../lib/renderers/tiny-gpt/tokenizer";
import { TinkerPolicy, buildDatums, dropZeroAdvantage, packDatums } from "./tinker-policy";
import { createOpenAIChatClient } from "../../lib/clients/openai-chat";
import type { LossConfig, TrainingDatum } from "../engine/io";
import { recordingTinkerModel } from "../../test/doubles/tinker-model";
import { type ServerProfile, serverLossSemantics } from "./loss-semantics";
import { detectServerProfile } from "../../lib/clients/tinker-profile";
import type { Datum } from "../../lib/clients/tinker-client";

const SMALL = { vocabSize: VOCAB_SIZE, contextLength: 128, nLayer: 1, nHead: 2, dModel: 32 };
let node: RunningNode;

beforeAll(async () => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "policy-"));
  node = await startNode({ port: 0, host: "127.0.0.1", dataDir, baseConfig: SMALL, seed: 2, longPollMs: 200 });
});
afterAll(async () => {
  await node?.close();
});

const loss: LossConfig = { loss: "ppo", clipLow: 0.2, clipHigh: 0.2, dualClip: 3, klCoef: 0.01, klType: "low_var_kl", entropyCoef: 0.001, lossAgg: "token-mean", recomputeLogprobs: false };
const optim = { lr: 0.02, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.01, gradClip: 1 };

/** Datum values as plain numbers, for comparisons (the policy builds int32 / float32 typed arrays). */
const vals = (a: ArrayLike<number>) => Array.from(a);
/** Expected float32 values (the wire's precision). */
const f32 = (a: number[]) => a.map(Math.fround);

describe("buildDatums", () => {
  it("aligns targets with inputs and scales advantages for a token mean", () => {
    const data: TrainingDatum[] = [
      { promptTokens: [1, 2, 3], responseTokens: [4, 5], logprobs: [-1, -2], advantages: [0.5, 0.5], role: "act" },
      { promptTokens: [7], responseTokens: [8, 9], logprobs: [-3, -4], advantages: [-1, -1], role: "rehearse" },
    ];
    const { datums, responseTokens } = buildDatums(data, { lossAgg: "token-mean", weights: "aggregation" });
    expect(responseTokens).toBe(4);
    expect(vals(datums[0].model_input.chunks[0].tokens)).toEqual([1, 2, 3, 4]);
    expect(vals(datums[0].loss_fn_inputs.target_tokens.data)).toEqual([2, 3, 4, 5]);
    expect(vals(datums[0].loss_fn_inputs.logprobs.data)).toEqual([0, 0, -1, -2]);
    expect(vals(datums[0].loss_fn_inputs.advantages.data)).toEqual([0, 0, 0.125, 0.125]);
    expect(vals(datums[0].loss_fn_inputs.weights.data)).toEqual([0, 0, 0.25, 0.25]);
    expect(vals(datums[1].model_input.chunks[0].tokens)).toEqual([7, 8]);
    expect(vals(datums[1].loss_fn_inputs.advantages.data)).toEqual([-0.25, -0.25]);
    expect(() => buildDatums([{ ...data[0], logprobs: [-1] }], { lossAgg: "token-mean", weights: "none" })).toThrow(/2 response tokens but 1 logprobs/);
  });
});

describe("packDatums / dropZeroAdvantage", () => {
  // Turn 1 of a conversation and turn 2, whose prompt contains turn 1's prompt and response.
  const turn1: TrainingDatum = { promptTokens: [1, 2, 3], responseTokens: [4, 5], logprobs: [-1, -2], advantages: [0.5, 0.5], role: "act" };
  const turn2: TrainingDatum = { promptTokens: [1, 2, 3, 4, 5, 6], responseTokens: [7], logprobs: [-3], advantages: [-1], role: "act" };

  it("folds a datum that is a prefix of another into it, keeping every loss position", () => {
    const { datums } = buildDatums([turn1, turn2], { lossAgg: "token-mean", weights: "aggregation" });
    const packed = packDatums(datums);
    expect(packed).toHaveLength(1);
    expect(vals(packed[0].model_input.chunks[0].tokens)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(vals(packed[0].loss_fn_inputs.target_tokens.data)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(vals(packed[0].loss_fn_inputs.logprobs.data)).toEqual([0, 0, -1, -2, 0, -3]);
    expect(vals(packed[0].loss_fn_inputs.advantages.data)).toEqual(f32([0, 0, 0.5 / 3, 0.5 / 3, 0, -1 / 3]));
    expect(vals(packed[0].loss_fn_inputs.weights.data)).toEqual(f32([0, 0, 1 / 3, 1 / 3, 0, 1 / 3]));
    // The inputs were not mutated.
    expect(vals(datums[1].loss_fn_inputs.advantages.data)).toEqual(f32([0, 0, 0, 0, 0, -1 / 3]));
  });

  it("keeps datums apart when the sequences diverge or their loss positions overlap", () => {
    const diverged = { ...turn2, promptTokens: [1, 2, 3, 4, 9, 6] };
    expect(packDatums(buildDatums([turn1, diverged], { lossAgg: "token-mean", weights: "none" }).datums)).toHaveLength(2);
    // The same generation twice (two rollouts that sampled identical tokens) must both count.
    expect(packDatums(buildDatums([turn1, turn1], { lossAgg: "token-mean", weights: "none" }).datums)).toHaveLength(2);
  });

  it("drops datums with all-zero advantages unless nothing would be left", () => {
    const zero = { ...turn2, advantages: [0] };
    const { datums } = buildDatums([turn1, zero], { lossAgg: "token-mean", weights: "none" });
    expect(dropZeroAdvantage(datums)).toEqual([datums[0]]);
    // Weights (sent to nodes with the KL/entropy extension) do not keep a zero-advantage datum alive.
    const weighted = buildDatums([turn1, zero], { lossAgg: "token-mean", weights: "aggregation" }).datums;
    expect(dropZeroAdvantage(weighted)).toEqual([weighted[0]]);
    const onlyZero = buildDatums([zero], { lossAgg: "token-mean", weights: "none" }).datums;
    expect(dropZeroAdvantage(onlyZero)).toEqual(onlyZero);
  });

  it("gives the node the same loss packed as unpacked", async () => {
    const policy = await TinkerPolicy.create({ baseUrl: node.url, model: "tiny-gpt", client: { retryBaseMs: 20 } });
    try {
      const prompt = [...Array(20).keys()].map((i) => 10 + i);
      const a: TrainingDatum = { promptTokens: prompt, responseTokens: [40, 41, 42], logprobs: [-5, -5, -5], advantages: [1, 1, 1], role: "act" };
      const b: TrainingDatum = { promptTokens: [...prompt, 40, 41, 42, 50, 51], responseTokens: [60, 61], logprobs: [-5, -5], advantages: [-0.5, -0.5], role: "act" };
      const c: TrainingDatum = { promptTokens: [7, 8], responseTokens: [9], logprobs: [-5], advantages: [0.25], role: "rehearse" };
      const { datums } = buildDatums([a, b, c], { lossAgg: "token-mean", weights: "aggregation" });
      const packed = packDatums(datums);
      expect(packed).toHaveLength(2);
      const cfg = { clip_low_threshold: 0.8, clip_high_threshold: 1.2 };
      const plain = await policy.model.forward(datums, "ppo", cfg);
      const merged = await policy.model.forward(packed, "ppo", cfg);
      expect(merged.metrics["loss:sum"]).toBeCloseTo(plain.metrics["loss:sum"], 5);
      expect(merged.metrics["tokens:sum"]).toBe(plain.metrics["tokens:sum"]);
    } finally {
      policy.close();
    }
  });
});

describe("TinkerPolicy against the embedded node", () => {
  it("generates, trains both roles, publishes and resumes", async () => {
    const policy = await TinkerPolicy.create({ baseUrl: node.url, model: "tiny-gpt", client: { retryBaseMs: 20 } });
    const messages = [{ role: "user" as const, content: "find order 7" }];
    const sampling = { temperature: 1, topP: 1, maxTokens: 12, seed: 4 };
    const g = await policy.generate({ role: "act", messages, sampling });
    expect(g.tokens.length).toBeGreaterThan(0);
    expect(g.logprobs).toHaveLength(g.tokens.length);
    expect(["stop", "length"]).toContain(g.finishReason);
    const again = await policy.generate({ role: "act", messages, sampling });
    expect(again.tokens).toEqual(g.tokens);

    const rewarded = g.tokens;
    const datum: TrainingDatum = { promptTokens: g.promptTokens, responseTokens: rewarded, logprobs: g.logprobs, advantages: rewarded.map(() => 1), role: "act" };
    const fb = await policy.forwardBackward([datum, { ...datum, role: "rehearse", advantages: rewarded.map(() => 0.5) }], loss);
    expect(fb.metrics.tokens).toBe(2 * rewarded.length);
    expect(fb.metrics.ratio_mean).toBeCloseTo(1, 4); // on-policy at temperature 1
    expect(fb.metrics.kl).toBeCloseTo(0, 6); // no update yet: policy == reference
    expect(fb.metrics.clip_frac).toBe(0);
    const opt = await policy.optimStep(optim);
    expect(opt.metrics.step).toBe(1);
    const baseSession = policy.sampler.id;
    await policy.updateSampler();
    expect(policy.sampler.id).not.toBe(baseSession); // generate() now samples from the trained weights
    const { path: samplerPath } = await policy.saveWeightsForSampler("policy-step1");
    expect(samplerPath).toMatch(/sampler_weights\/policy-step1$/);
    expect(policy.sampler.id).not.toBe(baseSession);

    // The rewarded tokens became more likely under the published weights.
    const after = await policy.forwardBackward([{ ...datum, advantages: rewarded.map(() => 0) }], { ...loss, klCoef: 0, entropyCoef: 0 });
    expect(after.metrics.ratio_mean).toBeGreaterThan(1);

    const state = await policy.saveState("policy-ck");
    const resumed = await TinkerPolicy.create({ baseUrl: node.url, model: "tiny-gpt", resumeFrom: state.path });
    const r1 = await policy.generate({ role: "rehearse", messages, sampling });
    const r2 = await resumed.generate({ role: "rehearse", messages, sampling });
    expect(r2.tokens).toEqual(r1.tokens);
    policy.close();
    resumed.close();
  });

  it("the OpenAI chat client talks to the node's /v1 endpoint", async () => {
    const chat = createOpenAIChatClient({ baseUrl: `${node.url}/v1`, model: "tiny-gpt", settings: { maxRetries: 0 } });
    const r = await chat.complete({ messages: [{ role: "user", content: "hello" }], maxTokens: 5, temperature: 0 });
    expect(typeof r.text).toBe("string");
    const ctrl = new AbortController();
    ctrl.abort();
    await expect(chat.complete({ messages: [{ role: "user", content: "x" }], signal: ctrl.signal })).rejects.toThrow();
  });
});

describe("the configured loss, end to end on the embedded node", () => {
  const ppo = (ratio: number, A: number, c: number) => {
    const l = Math.max(-A * ratio, -A * Math.min(Math.max(ratio, 0.8), 1.28));
    return A < 0 ? Math.min(l, -c * A) : l;
  };
  const seqMeanTokenMean = (rows: number[][]) => rows.reduce((s, r) => s + r.reduce((a, b) => a + b, 0) / r.length, 0) / rows.length;

  it("loss = verl's seq-mean-token-mean PPO + k1 KL, from the node's own log-probs; recomputed ratios are 1", async () => {
    const warnings: string[] = [];
    const policy = await TinkerPolicy.create({ baseUrl: node.url, model: "tiny-gpt", client: { retryBaseMs: 20 }, onWarning: (m) => warnings.push(m) });
    const fresh = await TinkerPolicy.create({ baseUrl: node.url, model: "tiny-gpt", client: { retryBaseMs: 20 } });
    try {
      expect(policy.lossSemantics.profile).toBe("envace-embedded");
      const sampling = { temperature: 1, topP: 1, maxTokens: 10, seed: 9 };
      const gens = await Promise.all(
        ["find order 7", "cancel order 3", "list items"].map((content) => policy.generate({ role: "act", messages: [{ role: "user", content }], sampling })),
      );
      const rows: TrainingDatum[] = gens.map((g, i) => ({
        promptTokens: g.promptTokens,
        responseTokens: g.tokens,
        logprobs: g.logprobs,
        advantages: g.tokens.map(() => [1.5, -2, 0.7][i]),
        role: "act",
      }));
      // Move the weights so that ratios ≠ 1 and the policy differs from the reference.
      await policy.forwardBackward(rows, loss);
      await policy.optimStep({ ...optim, lr: 0.05 });

      // The learner's and the reference's log-probs of the response tokens, as the node computes them.
      const probe = buildDatums(rows, { lossAgg: "token-mean", weights: "none" }).datums;
      const learner = (await policy.model.forward(probe, "cross_entropy")).loss_fn_outputs.map((o) => o.logprobs.data);
      const ref = (await fresh.model.forward(probe, "cross_entropy")).loss_fn_outputs.map((o) => o.logprobs.data);
      const at = (all: number[][], i: number) => all[i].slice(rows[i].promptTokens.length - 1);
      const pgRows = rows.map((r, i) => at(learner, i).map((lp, j) => ppo(Math.exp(lp - r.logprobs[j]), r.advantages[j], 3)));
      const klRows = rows.map((_, i) => at(learner, i).map((lp, j) => lp - at(ref, i)[j]));
      const cfg: LossConfig = { ...loss, lossAgg: "seq-mean-token-mean", klType: "k1", klCoef: 0.1, entropyCoef: 0, clipHigh: 0.28 };
      const fb = await policy.forwardBackward(rows, cfg);
      const wantPg = seqMeanTokenMean(pgRows);
      const wantKl = seqMeanTokenMean(klRows);
      expect(Math.abs(wantPg)).toBeGreaterThan(1e-3);
      expect(Math.abs(wantKl)).toBeGreaterThan(1e-4);
      expect(fb.metrics.pg_loss).toBeCloseTo(wantPg, 4);
      expect(fb.metrics.kl_loss).toBeCloseTo(wantKl, 4);
      expect(fb.metrics.loss).toBeCloseTo(wantPg + 0.1 * wantKl, 4);
      expect(fb.metrics.ratio_mean).not.toBeCloseTo(1, 2);
      // Another KL estimator is another number.
      const k2 = await policy.forwardBackward(rows, { ...cfg, klType: "k2" });
      expect(k2.metrics.kl_loss).toBeCloseTo(seqMeanTokenMean(klRows.map((r) => r.map((d) => 0.5 * d * d))), 4);

      // recomputeLogprobs: the ratio is taken against the trainer's log-probs (1 before the update).
      const recomputed = await policy.forwardBackward(rows, { ...cfg, recomputeLogprobs: true });
      expect(recomputed.metrics.ratio_mean).toBeCloseTo(1, 4);
      expect(recomputed.metrics.recomputed_logprob_abs_diff).toBeGreaterThan(1e-3);
      expect(recomputed.metrics.clip_frac).toBe(0);
      expect(warnings).toEqual([]);
      await policy.optimStep(optim);
    } finally {
      policy.close();
      fresh.close();
    }
  }, 60_000);
});

describe("TinkerPolicy against servers that cannot run here (recorded)", () => {
  const rowsOf = (): TrainingDatum[] => [
    { promptTokens: [1, 2, 3], responseTokens: [4, 5], logprobs: [-1, -2], advantages: [0.5, 0.5], role: "act" },
    { promptTokens: [7], responseTokens: [8, 9, 10, 11], logprobs: [-3, -4, -1, -1], advantages: [-1, -1, -1, -1], role: "rehearse" },
  ];
  // The private constructor, reached the way create() reaches it, with a recording model.
  const policyOn = (profile: ServerProfile, model: unknown, warnings: string[], assumed: string | null = null) =>
    Reflect.construct(TinkerPolicy, [null, model, null, null, new Set(), serverLossSemantics(profile), (m: string) => warnings.push(m), assumed]) as TinkerPolicy;
  const jaxReply = (data: Datum[]) => ({
    loss_fn_output_type: "scalar",
    loss_fn_outputs: data.map((d) => ({ elementwise_loss: { data: Array.from(d.loss_fn_inputs.advantages.data, (a, i) => -a * (d.loss_fn_inputs.weights?.data[i] ?? 1)), dtype: "float32" as const } })),
    metrics: {},
  });

  it("SkyRL JAX: mask weights, advantages scaled by B·W per datum, SkyRL's config keys, warnings once, loss from elementwise_loss", async () => {
    const warnings: string[] = [];
    const { model, calls } = recordingTinkerModel({ reply: jaxReply });
    const policy = policyOn("skyrl-jax", model, warnings);
    const cfg: LossConfig = { ...loss, lossAgg: "seq-mean-token-mean" };
    const fb = await policy.forwardBackward(rowsOf(), cfg);
    await policy.forwardBackward(rowsOf(), cfg);
    await policy.optimStep(optim);
    await policy.optimStep(optim);
    const sent = calls[0].data!;
    expect(Array.from(sent[0].loss_fn_inputs.weights.data)).toEqual([0, 0, 1, 1]);
    // A·w·B·W: w = 1/(2·2) for row 0, B = 2 datums, W = 2 response tokens → 0.5 · 0.25 · 4 = 0.5.
    expect(Array.from(sent[0].loss_fn_inputs.advantages.data)).toEqual([0, 0, 0.5, 0.5]);
    expect(Array.from(sent[1].loss_fn_inputs.advantages.data)).toEqual([-1, -1, -1, -1]); // −1 · 1/8 · 2 · 4
    expect(calls[0].config).toEqual({ clip_low_threshold: 0.8, clip_high_threshold: 1.2 });
    // JAX: mean over datums of Σ weights·(−A') / Σ weights = (−0.5 + 1) / 2.
    expect(fb.metrics.loss).toBeCloseTo(0.25, 12);
    expect(warnings.map((w) => w.split(":")[0])).toEqual([
      "no dual clip on this node (server profile skyrl-jax)",
      "no KL term on this node (server profile skyrl-jax)",
      "no entropy term on this node (server profile skyrl-jax)",
      "optim_step has no gradient clipping on this node (server profile skyrl-jax)",
    ]);
  });

  it("auto on SkyRL assumes JAX, says so, and stops before optim_step when a SkyRL-Train reply proves otherwise", async () => {
    const warnings: string[] = [];
    const { model } = recordingTinkerModel({ reply: (data) => ({ loss_fn_output_type: "scalar", loss_fn_outputs: data.map(() => ({})), metrics: { "total_loss:sum": 0.3, "pg_loss:sum": 0.3 } }) });
    const assumed = detectServerProfile("auto", { embedded: false, hostname: "skyrl.internal", rootName: "Tinker API Mock" });
    const policy = policyOn(assumed.profile, model, warnings, assumed.assumed);
    expect(warnings[0]).toMatch(/assuming its default JAX backend/);
    await expect(policy.forwardBackward(rowsOf(), { ...loss, klCoef: 0, entropyCoef: 0 })).rejects.toThrow(/set this node's server profile to skyrl-train/);
  });

  it("hosted Tinker: token-mean advantages, no weights, recomputed log-probs through a forward pass", async () => {
    const { model, calls } = recordingTinkerModel({
      reply: (data) => ({
        loss_fn_output_type: "scalar",
        loss_fn_outputs: data.map((d) => ({ logprobs: { data: Array.from(d.loss_fn_inputs.target_tokens.data, () => -0.5), dtype: "float32" as const } })),
        metrics: { "loss:sum": 0.1 },
      }),
    });
    const policy = policyOn("tinker", model, []);
    const fb = await policy.forwardBackward(rowsOf(), { ...loss, lossAgg: "token-mean", recomputeLogprobs: true });
    expect(calls.map((c) => c.op)).toEqual(["forward", "forward_backward"]);
    const sent = calls[1].data!;
    expect(sent[0].loss_fn_inputs.weights).toBeUndefined();
    expect(Array.from(sent[0].loss_fn_inputs.advantages.data)).toEqual(f32([0, 0, 0.5 / 6, 0.5 / 6]));
    expect(Array.from(sent[0].loss_fn_inputs.logprobs.data)).toEqual([0, 0, -0.5, -0.5]); // the trainer's, on response positions only
    expect(fb.metrics.recomputed_logprob_abs_diff).toBeCloseTo((0.5 + 1.5 + 2.5 + 3.5 + 0.5 + 0.5) / 6, 12);
    expect(fb.metrics.loss).toBe(0.1);
  });
});
