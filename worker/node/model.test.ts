import { describe, expect, it, beforeAll } from "vitest";
import os from "node:os";
import path from "node:path";
import { promises as fs } from "node:fs";
import { type GPTConfig, ensureBackend, initParamValues, sampleRows, tensorsFromValues, disposeParams, countParams, DEFAULT_CONFIG } from "./model";
import * as tf from "@tensorflow/tfjs";
import { DEFAULT_LOSS_CONFIG, Trainer, type TrainDatum } from "./train";
import { loadCheckpoint, saveCheckpoint } from "./checkpoint";

const TINY: GPTConfig = { vocabSize: 16, contextLength: 16, nLayer: 1, nHead: 2, dModel: 8 };

beforeAll(async () => {
  await ensureBackend("wasm");
});

function lossOf(trainer: Trainer, data: TrainDatum[], fn: "ppo" | "cross_entropy", lc = DEFAULT_LOSS_CONFIG): Promise<number> {
  return trainer.forwardBackward(data, fn, lc, true).then((r) => r.metrics["loss:sum"]);
}

describe("tiny GPT", () => {
  it("default config has 0.3–1M parameters", () => {
    const n = countParams(DEFAULT_CONFIG);
    expect(n).toBeGreaterThan(300_000);
    expect(n).toBeLessThan(1_000_000);
  });

  it("gradient of the PPO loss matches finite differences", async () => {
    const values = initParamValues(TINY, 7);
    // Larger init so the loss is not flat.
    for (const v of values.values()) for (let i = 0; i < v.length; i++) v[i] *= 3;
    const trainer = new Trainer(TINY, values, tensorsFromValues(TINY, initParamValues(TINY, 8)));
    const data: TrainDatum[] = [
      { tokens: [1, 2, 3, 4, 5], targets: [2, 3, 4, 5, 6], logprobs: [-2.5, -2.9, -2.7, -2.6, -3], advantages: [0, 1, 1, -0.5, 2] },
      { tokens: [9, 8, 7], targets: [8, 7, 6], logprobs: [-2.8, -2.8, -2.8], advantages: [-1, -1, 0.5] },
    ];
    const lc = { ...DEFAULT_LOSS_CONFIG, clipLowThreshold: 0.2, clipHighThreshold: 5, dualClipThreshold: 3, klCoef: 0.1, entropyCoef: 0.05 };
    await trainer.forwardBackward(data, "ppo", lc);
    const grads = trainer.gradValues()!;
    trainer.zeroGrad();
    const eps = 3e-3;
    let checked = 0;
    for (const name of ["wte", "h0.attn.wqkv", "h0.mlp.wproj", "lnf.g", "wpe", "h0.ln1.b"]) {
      const g = grads.get(name)!;
      // the coordinate with the largest gradient, plus one fixed coordinate
      let big = 0;
      for (let i = 0; i < g.length; i++) if (Math.abs(g[i]) > Math.abs(g[big])) big = i;
      for (const idx of [big, 3 % g.length]) {
        const plus = new Map([...values].map(([k, v]) => [k, Float32Array.from(v)]));
        const minus = new Map([...values].map(([k, v]) => [k, Float32Array.from(v)]));
        plus.get(name)![idx] += eps;
        minus.get(name)![idx] -= eps;
        trainer.load(plus, undefined);
        const lp = await lossOf(trainer, data, "ppo", lc);
        trainer.load(minus, undefined);
        const lm = await lossOf(trainer, data, "ppo", lc);
        const fd = (lp - lm) / (2 * eps);
        expect(Math.abs(fd - g[idx])).toBeLessThan(2e-3 + 0.03 * Math.abs(g[idx]));
        checked++;
      }
    }
    expect(checked).toBe(12);
    trainer.dispose();
  });

  it("a positive advantage raises the logprob of the rewarded tokens, a negative one lowers it", async () => {
    for (const sign of [1, -1]) {
      const trainer = new Trainer(TINY, initParamValues(TINY, 3), null);
      const datum: TrainDatum = { tokens: [1, 4, 2, 9], targets: [4, 2, 9, 5], logprobs: [0, 0, 0, 0], advantages: [0, sign, sign, sign] };
      const before = (await trainer.forwardBackward([datum], "ppo", DEFAULT_LOSS_CONFIG, true)).outputs[0].logprobs;
      // On-policy: sampling logprobs equal the learner's, so ratio = 1.
      datum.logprobs = before;
      const r = await trainer.forwardBackward([datum], "ppo", DEFAULT_LOSS_CONFIG);
      expect(r.metrics["ratio:sum"] / r.metrics["tokens:sum"]).toBeCloseTo(1, 5);
      trainer.optimStep({ learningRate: 1e-2, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0, gradClipNorm: 1 });
      const after = (await trainer.forwardBackward([datum], "ppo", DEFAULT_LOSS_CONFIG, true)).outputs[0].logprobs;
      for (let i = 1; i < 4; i++) expect(Math.sign(after[i] - before[i])).toBe(sign);
      trainer.dispose();
    }
  });

  it("refuses a non-finite loss and leaves weights unchanged", async () => {
    const trainer = new Trainer(TINY, initParamValues(TINY, 3), null);
    const before = trainer.weightValues().get("wte")!.slice();
    const bad: TrainDatum = { tokens: [1, 2], targets: [2, 3], logprobs: [-1000, -1000], advantages: [1e30, 1e30] };
    await expect(trainer.forwardBackward([bad], "importance_sampling", DEFAULT_LOSS_CONFIG)).rejects.toThrow(/not finite/);
    expect(trainer.gradValues()).toBeNull();
    trainer.optimStep({ learningRate: 1, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0, gradClipNorm: 0 });
    expect(Array.from(trainer.weightValues().get("wte")!)).toEqual(Array.from(before));
    trainer.dispose();
  });

  it("sampling is deterministic for a seed, stops at stop tokens and returns sampling logprobs", async () => {
    const params = tensorsFromValues(TINY, initParamValues(TINY, 11));
    const opts = { maxTokens: 10, temperature: 1, topP: 1, topK: 0, stopTokens: [] as number[], seed: 42 };
    const rows = [
      { prompt: [1, 2, 3], options: opts },
      { prompt: [5], options: { ...opts, seed: 43 } },
    ];
    const a = await sampleRows(params, TINY, rows);
    const b = await sampleRows(params, TINY, rows);
    expect(a).toEqual(b);
    expect(a[0].tokens).toHaveLength(10);
    expect(a[0].stopReason).toBe("length");
    // batched rows match the same rows sampled alone
    const alone = await sampleRows(params, TINY, [rows[1]]);
    expect(alone[0].tokens).toEqual(a[1].tokens);
    for (let i = 0; i < 10; i++) expect(alone[0].logprobs[i]).toBeCloseTo(a[1].logprobs[i], 4);
    // sampling logprobs at temperature 1 equal the learner's logprobs (on-policy ratio = 1)
    const trainer = new Trainer(TINY, initParamValues(TINY, 11), null);
    const seq = [...rows[0].prompt, ...a[0].tokens];
    const fwd = await trainer.forwardBackward([{ tokens: seq.slice(0, -1), targets: seq.slice(1) }], "cross_entropy", DEFAULT_LOSS_CONFIG, true);
    const learner = fwd.outputs[0].logprobs.slice(rows[0].prompt.length - 1);
    for (let i = 0; i < 10; i++) expect(learner[i]).toBeCloseTo(a[0].logprobs[i], 4);
    // stop token: stop on the first sampled token of the unconstrained run
    const stop = a[0].tokens[3];
    const stopped = await sampleRows(params, TINY, [{ prompt: [1, 2, 3], options: { ...opts, stopTokens: [stop] } }]);
    const firstIdx = a[0].tokens.indexOf(stop);
    expect(stopped[0].tokens).toEqual(a[0].tokens.slice(0, firstIdx + 1));
    expect(stopped[0].stopReason).toBe("stop");
    // greedy and top-p
    const greedy = await sampleRows(params, TINY, [{ prompt: [1], options: { ...opts, temperature: 0 } }, { prompt: [1], options: { ...opts, temperature: 0, seed: 9 } }]);
    expect(greedy[0].tokens).toEqual(greedy[1].tokens);
    const nucleus = await sampleRows(params, TINY, [{ prompt: [1], options: { ...opts, topP: 0.3 } }]);
    for (const lp of nucleus[0].logprobs) expect(lp).toBeGreaterThan(Math.log(0.3) - 1e-6 - Math.log(16));
    disposeParams(params);
    trainer.dispose();
  });

  it("checkpoint round trip restores weights and optimizer state", async () => {
    const trainer = new Trainer(TINY, initParamValues(TINY, 5), null);
    await trainer.forwardBackward([{ tokens: [1, 2, 3], targets: [2, 3, 4] }], "cross_entropy", DEFAULT_LOSS_CONFIG);
    trainer.optimStep({ learningRate: 1e-2, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, gradClipNorm: 1 });
    const dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "ckpt-")), "a");
    await saveCheckpoint(dir, TINY, trainer.weightValues(), trainer.optimizerState(), { note: "x" });
    const loaded = await loadCheckpoint(dir, { optimizer: true });
    expect(loaded.config).toEqual(TINY);
    expect(loaded.meta).toEqual({ note: "x" });
    for (const [k, v] of trainer.weightValues()) expect(Array.from(loaded.weights.get(k)!)).toEqual(Array.from(v));
    const opt = trainer.optimizerState()!;
    expect(loaded.optimizer!.step).toBe(1);
    expect(Array.from(loaded.optimizer!.v.get("wte")!)).toEqual(Array.from(opt.v.get("wte")!));
    // continuing from the checkpoint gives the same next step as continuing in memory
    const other = new Trainer(TINY, loaded.weights, null);
    other.load(loaded.weights, loaded.optimizer);
    for (const t of [trainer, other]) {
      await t.forwardBackward([{ tokens: [4, 5], targets: [5, 6] }], "cross_entropy", DEFAULT_LOSS_CONFIG);
      t.optimStep({ learningRate: 1e-2, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, gradClipNorm: 1 });
    }
    expect(Array.from(other.weightValues().get("h0.mlp.wfc")!)).toEqual(Array.from(trainer.weightValues().get("h0.mlp.wfc")!));
    trainer.dispose();
    other.dispose();
  });

  it("training and sampling do not leak tensors", async () => {
    const trainer = new Trainer(TINY, initParamValues(TINY, 5), tensorsFromValues(TINY, initParamValues(TINY, 6)));
    const datum: TrainDatum = { tokens: [1, 2, 3], targets: [2, 3, 4], logprobs: [-2, -2, -2], advantages: [1, -1, 1] };
    const lc = { ...DEFAULT_LOSS_CONFIG, dualClipThreshold: 3, klCoef: 0.1, entropyCoef: 0.01 };
    const round = async () => {
      await trainer.forwardBackward([datum, datum], "ppo", lc);
      await trainer.forwardBackward([datum], "importance_sampling", lc, true);
      trainer.optimStep({ learningRate: 1e-3, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, gradClipNorm: 1 });
      const snap = trainer.snapshot();
      await sampleRows(snap, TINY, [{ prompt: [1, 2], options: { maxTokens: 5, temperature: 1, topP: 0.9, topK: 0, stopTokens: [3], seed: 1 } }, { prompt: [4], options: { maxTokens: 3, temperature: 1, topP: 1, topK: 0, stopTokens: [], seed: 2 } }]);
      disposeParams(snap);
    };
    await round(); // creates optimizer moments and cached masks
    const before = tf.memory().numTensors;
    await round();
    await round();
    expect(tf.memory().numTensors).toBe(before);
    trainer.dispose();
  });
});
