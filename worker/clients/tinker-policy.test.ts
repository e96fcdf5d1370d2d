import { afterAll, beforeAll, describe, expect, it } from "vitest";
import os from "node:os";
import path from "node:path";
import { promises as fs } from "node:fs";
import { startNode, type RunningNode } from "../node/server";
import { VOCAB_SIZE } from "../node/tokenizer";
import { TinkerPolicy, buildDatums, dropZeroAdvantage, packDatums } from "./tinker-policy";
import { createOpenAIChatClient } from "./openai-chat";
import type { LossConfig, TrainingDatum } from "../engine/io";

const SMALL = { vocabSize: VOCAB_SIZE, contextLength: 128, nLayer: 1, nHead: 2, dModel: 32 };
let node: RunningNode;

beforeAll(async () => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "policy-"));
  node = await startNode({ port: 0, host: "127.0.0.1", dataDir, baseConfig: SMALL, seed: 2, longPollMs: 200 });
});
afterAll(async () => {
  await node?.close();
});

const loss: LossConfig = { loss: "ppo", clipLow: 0.2, clipHigh: 0.2, dualClip: 3, klCoef: 0.01, entropyCoef: 0.001 };
const optim = { lr: 0.02, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.01, gradClip: 1 };

/** Datum values as plain numbers, for comparisons (the policy builds int32 / float32 typed arrays). */
const vals = (a: ArrayLike<number>) => Array.from(a);
/** Expected float32 values. */
const f32 = (a: number[]) => a.map(Math.fround);

describe("buildDatums", () => {
  it("aligns targets with inputs and scales advantages for a token mean", () => {
    const data: TrainingDatum[] = [
      { promptTokens: [1, 2, 3], responseTokens: [4, 5], logprobs: [-1, -2], advantages: [0.5, 0.5], role: "act" },
      { promptTokens: [7], responseTokens: [8, 9], logprobs: [-3, -4], advantages: [-1, -1], role: "rehearse" },
    ];
    const { datums, responseTokens } = buildDatums(data, { sendWeights: true });
    expect(responseTokens).toBe(4);
    expect(vals(datums[0].model_input.chunks[0].tokens)).toEqual([1, 2, 3, 4]);
    expect(vals(datums[0].loss_fn_inputs.target_tokens.data)).toEqual([2, 3, 4, 5]);
    expect(vals(datums[0].loss_fn_inputs.logprobs.data)).toEqual([0, 0, -1, -2]);
    expect(vals(datums[0].loss_fn_inputs.advantages.data)).toEqual([0, 0, 0.125, 0.125]);
    expect(vals(datums[0].loss_fn_inputs.weights.data)).toEqual([0, 0, 0.25, 0.25]);
    expect(vals(datums[1].model_input.chunks[0].tokens)).toEqual([7, 8]);
    expect(vals(datums[1].loss_fn_inputs.advantages.data)).toEqual([-0.25, -0.25]);
    expect(() => buildDatums([{ ...data[0], logprobs: [-1] }], { sendWeights: false })).toThrow(/2 response tokens but 1 logprobs/);
  });
});

describe("packDatums / dropZeroAdvantage", () => {
  // Turn 1 of a conversation and turn 2, whose prompt contains turn 1's prompt and response.
  const turn1: TrainingDatum = { promptTokens: [1, 2, 3], responseTokens: [4, 5], logprobs: [-1, -2], advantages: [0.5, 0.5], role: "act" };
  const turn2: TrainingDatum = { promptTokens: [1, 2, 3, 4, 5, 6], responseTokens: [7], logprobs: [-3], advantages: [-1], role: "act" };

  it("folds a datum that is a prefix of another into it, keeping every loss position", () => {
    const { datums } = buildDatums([turn1, turn2], { sendWeights: true });
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
    expect(packDatums(buildDatums([turn1, diverged], { sendWeights: false }).datums)).toHaveLength(2);
    // The same generation twice (two rollouts that sampled identical tokens) must both count.
    expect(packDatums(buildDatums([turn1, turn1], { sendWeights: false }).datums)).toHaveLength(2);
  });

  it("drops datums with all-zero advantages unless nothing would be left", () => {
    const zero = { ...turn2, advantages: [0] };
    const { datums } = buildDatums([turn1, zero], { sendWeights: false });
    expect(dropZeroAdvantage(datums)).toEqual([datums[0]]);
    // Weights (sent to nodes with the KL/entropy extension) do not keep a zero-advantage datum alive.
    const weighted = buildDatums([turn1, zero], { sendWeights: true }).datums;
    expect(dropZeroAdvantage(weighted)).toEqual([weighted[0]]);
    const onlyZero = buildDatums([zero], { sendWeights: false }).datums;
    expect(dropZeroAdvantage(onlyZero)).toEqual(onlyZero);
  });

  it("gives the node the same loss packed as unpacked", async () => {
    const policy = await TinkerPolicy.create({ baseUrl: node.url, model: "tiny-gpt", client: { retryBaseMs: 20 } });
    try {
      const prompt = [...Array(20).keys()].map((i) => 10 + i);
      const a: TrainingDatum = { promptTokens: prompt, responseTokens: [40, 41, 42], logprobs: [-5, -5, -5], advantages: [1, 1, 1], role: "act" };
      const b: TrainingDatum = { promptTokens: [...prompt, 40, 41, 42, 50, 51], responseTokens: [60, 61], logprobs: [-5, -5], advantages: [-0.5, -0.5], role: "act" };
      const c: TrainingDatum = { promptTokens: [7, 8], responseTokens: [9], logprobs: [-5], advantages: [0.25], role: "rehearse" };
      const { datums } = buildDatums([a, b, c], { sendWeights: true });
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
