/** TinkerPolicy's session / sampler / save / load management against SkyRL tx's contract. */
import { afterEach, describe, expect, it } from "vitest";
import { SkyRLDouble } from "../../test/doubles/skyrl-tinker";
import type { LossConfig, TrainingDatum } from "../engine/io";
import { loadRenderer } from "../../lib/renderers";
import { END_TOKEN } from "../../lib/renderers/tiny-gpt/tokenizer";
import { TinkerPolicy } from "./tinker-policy";

let double: SkyRLDouble | null = null;
const policies: TinkerPolicy[] = [];
afterEach(async () => {
  for (const p of policies.splice(0)) p.close();
  await double?.close();
  double = null;
});

/** The embedded node's byte format; the double's sampler ends with its end token. */
const renderer = loadRenderer("tiny-gpt");
const eos = { eosToken: END_TOKEN };
const loss: LossConfig = { loss: "ppo", clipLow: 0.2, clipHigh: 0.2, dualClip: 3, klCoef: 0, klType: "low_var_kl", entropyCoef: 0, lossAgg: "token-mean", recomputeLogprobs: false };
const optim = { lr: 1e-5, beta1: 0.9, beta2: 0.95, eps: 1e-12, weightDecay: 0, gradClip: 1 };

async function policy(opts: Partial<Parameters<typeof TinkerPolicy.create>[0]> = {}) {
  const logs: string[] = [];
  const p = await TinkerPolicy.create({ baseUrl: double!.url, nodeName: "gpu-1", model: "Qwen/Qwen3-8B", renderer, client: { retryBaseMs: 5 }, onWarning: (m) => logs.push(m), ...opts });
  policies.push(p);
  return { p, logs };
}

describe("TinkerPolicy against SkyRL tx", () => {
  it("checks the LoRA rank against SkyRL JAX's limit before creating anything", async () => {
    double = await new SkyRLDouble(eos).start();
    await expect(policy({ loraRank: 64 })).rejects.toThrow(/LoRA rank 64 is above what node "gpu-1" allows \(32, skyrl-jax\)/);
    expect(double.models.size).toBe(0);
    const { p } = await policy({ loraRank: 8, maxLoraRank: 8 });
    expect(double.models.get(p.model.modelId)?.rank).toBe(8);
  });

  it("samples through sessions, clamps max_tokens to the model's context, publishes ephemerally per step, persistently on demand", async () => {
    double = await new SkyRLDouble(eos).start();
    const { p } = await policy({ contextLength: 20 });
    const g = await p.generate({ role: "act", messages: [{ role: "user", content: "hi" }], sampling: { temperature: 1, topP: 1, maxTokens: 100 } });
    expect(g.tokens).toEqual([100, 101, 102, END_TOKEN]);
    expect(g.finishReason).toBe("stop");
    const sample = double.requests.find((r) => r.path === "asample")!;
    expect(sample.body).toMatchObject({ seq_id: 0, sampling_params: { max_tokens: 20 - g.promptTokens.length, stop: [END_TOKEN] } });
    expect(sample.body?.sampling_session_id).toBe(p.sampler.id);

    const datum: TrainingDatum = { promptTokens: g.promptTokens, responseTokens: g.tokens, logprobs: g.logprobs, advantages: g.tokens.map(() => 1), role: "act" };
    const fb = await p.forwardBackward([datum], loss);
    // SkyRL JAX reports no metrics: the loss comes from the per-token outputs, never NaN.
    expect(Number.isFinite(fb.metrics.loss)).toBe(true);
    expect(fb.metrics.tokens).toBe(4);
    const opt = await p.optimStep(optim);
    expect(opt.metrics).toEqual({ grad_norm: 0.5, learning_rate: 1e-5 });
    const before = p.sampler.id;
    await p.updateSampler();
    expect(p.sampler.id).not.toBe(before);
    expect(double.requests.filter((r) => r.path === "save_weights_for_sampler").map((r) => r.body?.path ?? null)).toEqual([null]);
    await p.generate({ role: "act", messages: [{ role: "user", content: "x" }], sampling: { temperature: 1, topP: 1, maxTokens: 4 } });
    expect(double.requests.filter((r) => r.path === "asample").at(-1)?.body).toMatchObject({ sampling_session_id: p.sampler.id, seq_id: 0 });
    const ck = await p.saveWeightsForSampler("run-step-1");
    expect(ck.path).toBe(`tinker://${p.model.modelId}/run-step-1`);
  });

  it("resumes with load_weights as the model's first request, and recovers when the load's reply was lost", async () => {
    double = await new SkyRLDouble(eos).start();
    const { p } = await policy();
    const state = await p.saveState("ck");
    double.dropReply("load_weights");
    const { p: resumed, logs } = await policy({ resumeFrom: state.path });
    expect(logs.join("\n")).toMatch(/load_weights of .* lost its reply .* loading into a fresh model/);
    const loads = double.requests.filter((r) => r.path === "load_weights");
    expect(loads.length).toBeGreaterThanOrEqual(3); // lost, refused retry (400), then the fresh model's load
    expect(loads.at(-1)?.body?.model_id).toBe(resumed.model.modelId);
    // The model whose load state was unknown was unloaded; the resumed policy samples from the loaded weights.
    expect(double.liveAdapters()).toBe(2);
    expect(resumed.sampler.id).toMatch(/^sampling_/);
  });

  it("an evaluation policy samples the base model through a sampling session and creates no LoRA model", async () => {
    double = await new SkyRLDouble(eos).start();
    const { p, logs } = await policy({ sampleOnly: true, loraRank: 64 });
    const g = await p.generate({ role: "act", messages: [{ role: "user", content: "hi" }], sampling: { temperature: 1, topP: 1, maxTokens: 8 } });
    expect(g.tokens).toEqual([100, 101, 102, END_TOKEN]);
    // No create_model (no adapter slot taken, no LoRA-rank check needed), one base-model sampling session.
    expect(double.requests.filter((r) => r.path === "create_model")).toEqual([]);
    expect(double.models.size).toBe(0);
    expect(double.requests.find((r) => r.path === "create_sampling_session")?.body).toMatchObject({ base_model: "Qwen/Qwen3-8B" });
    expect(double.requests.find((r) => r.path === "asample")?.body?.sampling_session_id).toBe(p.sampler.id);
    // Nothing is trained, so the backend guess (JAX) is not worth a warning.
    expect(logs.join("\n")).not.toMatch(/assuming its default JAX backend/);
    expect(() => p.model).toThrow(/only samples/);
    await expect(p.optimStep(optim)).rejects.toThrow(/only samples/);
  });
});
