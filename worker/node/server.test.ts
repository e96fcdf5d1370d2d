import { afterAll, beforeAll, describe, expect, it } from "vitest";
import os from "node:os";
import path from "node:path";
import { promises as fs } from "node:fs";
import OpenAI from "openai";
import { startNode, type RunningNode } from "./server";
import { TinkerClient, TinkerError, tokensInput, type Datum } from "../../lib/clients/tinker-client";
import { renderPrompt, stopTokens } from "../../lib/renderers/tiny-gpt/chat-format";
import { VOCAB_SIZE } from "../../lib/renderers/tiny-gpt/tokenizer";

const SMALL = { vocabSize: VOCAB_SIZE, contextLength: 96, nLayer: 1, nHead: 2, dModel: 32 };
const API_KEY = "test-key-123456";
let node: RunningNode;
let dataDir: string;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "node-"));
  node = await startNode({ port: 0, host: "127.0.0.1", dataDir, baseConfig: SMALL, seed: 1, longPollMs: 200, apiKey: API_KEY });
});
afterAll(async () => {
  await node?.close();
});

async function raw(p: string, body: string | object, headers: Record<string, string> = { "x-api-key": API_KEY }) {
  const res = await fetch(`${node.url}${p}`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** retrieve_future until the result is ready (training runs on a worker thread; a long poll may end first). */
async function settled(requestId: unknown) {
  for (let i = 0; i < 100; i++) {
    const r = await raw("/api/v1/retrieve_future", { request_id: requestId });
    if (r.json.type !== "try_again") return r;
  }
  throw new Error(`future ${String(requestId)} never settled`);
}

function ppoDatum(prompt: number[], completion: number[], logprobs: number[], advantage: number): Datum {
  const seq = [...prompt, ...completion];
  const pad = new Array(prompt.length - 1).fill(0);
  return {
    model_input: tokensInput(seq.slice(0, -1)),
    loss_fn_inputs: {
      target_tokens: { data: seq.slice(1), dtype: "int64" },
      logprobs: { data: [...pad, ...logprobs], dtype: "float32" },
      advantages: { data: [...pad, ...completion.map(() => advantage)], dtype: "float32" },
    },
  };
}

describe("embedded node over HTTP", () => {
  it("trains through the Tinker client and samples from the published weights", async () => {
    const client = new TinkerClient({ baseUrl: node.url, apiKey: API_KEY, retryBaseMs: 20 });
    await client.start(["test"]);
    const caps = await client.capabilities();
    expect(caps.supported_models[0]).toEqual({ model_name: "tiny-gpt", max_context_length: 96 });
    const model = await client.createModel("tiny-gpt");
    const info = await model.getInfo();
    expect(info.model_data).toMatchObject({ tokenizer_id: "envace/byte-chat-v1" });

    const prompt = renderPrompt([{ role: "user", content: "hi" }]);
    const target = [...Array.from(Buffer.from("ok!")), ...stopTokens];
    const greedy = { max_tokens: 6, temperature: 0, stop: stopTokens };
    const before = await client.sample({ baseModel: "tiny-gpt" }, prompt, greedy);
    expect(before.sequences[0].tokens).not.toEqual(target);

    // A few PPO steps with a positive advantage on the target completion, pipelined
    // (forward_backward and optim_step submitted before either is awaited).
    let lastPath = "";
    for (let step = 0; step < 12; step++) {
      const fwd = await model.forward([ppoDatum(prompt, target, new Array(target.length).fill(0), 1)], "cross_entropy");
      const lp = fwd.loss_fn_outputs[0].logprobs.data.slice(prompt.length - 1);
      const fb = model.forwardBackward([ppoDatum(prompt, target, lp, 1)], "ppo", { clip_low_threshold: 0.8, clip_high_threshold: 1.2 });
      const opt = model.optimStep({ learning_rate: 0.02, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0, grad_clip_norm: 1 });
      const [fbOut, optOut] = await Promise.all([fb, opt]);
      expect(fbOut.metrics["ratio:sum"] / fbOut.metrics["tokens:sum"]).toBeCloseTo(1, 4);
      expect(optOut.metrics?.step).toBe(step + 1);
      lastPath = (await model.saveWeightsForSampler(`step${step}`)).path!;
    }
    expect(lastPath).toMatch(/^tinker:\/\/model_[0-9a-f]+\/sampler_weights\/step11$/);
    const after = await client.sample({ modelPath: lastPath }, prompt, greedy);
    expect(after.sequences[0].tokens).toEqual(target);
    expect(after.sequences[0].stop_reason).toBe("stop");
    // The base model is unchanged by training.
    const baseAgain = await client.sample({ baseModel: "tiny-gpt" }, prompt, greedy);
    expect(baseAgain.sequences[0].tokens).toEqual(before.sequences[0].tokens);

    // Ephemeral publication and a training checkpoint.
    const eph = await model.saveWeightsForSamplerEphemeral();
    expect(eph.id).toMatch(/^sampling_/);
    const viaSession = await eph.sample(prompt, greedy);
    expect(viaSession.sequences[0].tokens).toEqual(target);
    const saved = await model.saveWeights("ck1");
    expect(saved.path).toMatch(/\/weights\/ck1$/);
    const resumed = await client.createModel("tiny-gpt");
    await resumed.loadWeights(saved.path);
    const resumedSampler = await resumed.saveWeightsForSamplerEphemeral();
    const viaResumed = await resumedSampler.sample(prompt, greedy);
    expect(viaResumed.sequences[0].tokens).toEqual(target);
    // load_weights is only allowed as the first op
    await expect(resumed.loadWeights(saved.path)).rejects.toThrow(/first request/);
    client.close();
  });

  it("samples deterministically with a seed and returns logprobs per token", async () => {
    const client = new TinkerClient({ baseUrl: node.url, apiKey: API_KEY });
    await client.start();
    const params = { max_tokens: 12, temperature: 1, seed: 5 };
    const a = await client.sample({ baseModel: "tiny-gpt" }, [1, 2, 3], params, 3);
    const b = await client.sample({ baseModel: "tiny-gpt" }, [1, 2, 3], params, 3);
    expect(a).toEqual(b);
    expect(a.sequences).toHaveLength(3);
    expect(a.sequences[0].tokens).not.toEqual(a.sequences[1].tokens);
    for (const s of a.sequences) expect(s.logprobs).toHaveLength(s.tokens.length);
    client.close();
  });

  it("rejects bad requests with clear errors and keeps serving", async () => {
    const sess = await raw("/api/v1/create_session", { tags: [], sdk_version: "0.25.0" });
    const created = await raw("/api/v1/create_model", { session_id: sess.json.session_id, base_model: "tiny-gpt", lora_config: { rank: 8 } });
    const modelId = created.json.model_id as string;

    const bad = await raw("/api/v1/forward_backward", "{not json");
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toMatch(/malformed JSON/);

    const noKey = await raw("/api/v1/create_session", { tags: [], sdk_version: "0.25.0" }, {});
    expect(noKey.status).toBe(401);
    const bearer = await raw("/api/v1/create_session", { tags: [], sdk_version: "0.25.0" }, { authorization: `Bearer ${API_KEY}` });
    expect(bearer.status).toBe(200);
    const health = await fetch(`${node.url}/api/v1/healthz`);
    expect(health.status).toBe(200);

    const unknown = await raw("/api/v1/optim_step", { model_id: "model_nope", seq_id: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.json.detail).toMatch(/unknown model_id 'model_nope'/);

    const baseModelMissing = await raw("/api/v1/create_model", { session_id: sess.json.session_id, base_model: "gpt-9", lora_config: { rank: 8 } });
    expect(baseModelMissing.status).toBe(404);

    const ahead = await raw("/api/v1/optim_step", { model_id: modelId, seq_id: 100 });
    expect(ahead.status).toBe(400);
    expect(ahead.json.detail).toMatch(/out of order: model .* expects seq_id 1 next/);

    const datum = (tokens: number[]) => ({ model_input: { chunks: [{ type: "encoded_text", tokens }] }, loss_fn_inputs: { target_tokens: { data: tokens, dtype: "int64" } } });
    const oov = await raw("/api/v1/forward_backward", { model_id: modelId, seq_id: 1, forward_backward_input: { loss_fn: "cross_entropy", data: [datum([1, 999])] } });
    expect(oov.status).toBe(400);
    expect(oov.json.detail).toMatch(/token 999 is outside the vocabulary/);
    // A rejected request does not consume its seq_id: 1 runs next; reusing 1 with another payload conflicts.
    const ok2 = await raw("/api/v1/forward_backward", { model_id: modelId, seq_id: 1, forward_backward_input: { loss_fn: "cross_entropy", data: [datum([1, 2])] } });
    expect(ok2.status).toBe(200);
    const dup = await raw("/api/v1/forward_backward", { model_id: modelId, seq_id: 1, forward_backward_input: { loss_fn: "cross_entropy", data: [datum([1, 2])] } });
    expect(dup.json.request_id).toBe(ok2.json.request_id);
    const conflict = await raw("/api/v1/optim_step", { model_id: modelId, seq_id: 1 });
    expect(conflict.status).toBe(409);
    const noSeq = await raw("/api/v1/optim_step", { model_id: modelId });
    expect(noSeq.status).toBe(400);
    expect(noSeq.json.detail).toMatch(/seq_id is required/);

    const result = await settled(ok2.json.request_id);
    expect(result.json.loss_fn_output_type).toBe("scalar");

    const sampleOov = await raw("/api/v1/asample", { prompt: { chunks: [{ tokens: [5000] }] }, base_model: "tiny-gpt", sampling_params: { max_tokens: 2 } });
    expect(sampleOov.status).toBe(400);
    expect(sampleOov.json.detail).toMatch(/prompt token 5000/);
    const tooMany = await raw("/api/v1/asample", { prompt: { chunks: [{ tokens: [1] }] }, base_model: "tiny-gpt", num_samples: 10_000, sampling_params: { max_tokens: 2 } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.detail).toMatch(/num_samples/);
    // SkyRL tx's sampling contract: max_tokens required, stop a list of one kind, a seq_id with a session.
    const noMax = await raw("/api/v1/asample", { prompt: { chunks: [{ tokens: [1] }] }, base_model: "tiny-gpt", sampling_params: {} });
    expect(noMax.json.detail).toMatch(/max_tokens is required/);
    const bareStop = await raw("/api/v1/asample", { prompt: { chunks: [{ tokens: [1] }] }, base_model: "tiny-gpt", sampling_params: { max_tokens: 2, stop: "x" } });
    expect(bareStop.json.detail).toMatch(/stop must be a list/);
    const mixedStop = await raw("/api/v1/asample", { prompt: { chunks: [{ tokens: [1] }] }, base_model: "tiny-gpt", sampling_params: { max_tokens: 2, stop: [1, "x"] } });
    expect(mixedStop.status).toBe(400);
    const ss = await raw("/api/v1/create_sampling_session", { session_id: sess.json.session_id, sampling_session_seq_id: 0, base_model: "tiny-gpt" });
    const noSampleSeq = await raw("/api/v1/asample", { prompt: { chunks: [{ tokens: [1] }] }, sampling_session_id: ss.json.sampling_session_id, sampling_params: { max_tokens: 2 } });
    expect(noSampleSeq.status).toBe(400);
    expect(noSampleSeq.json.detail).toMatch(/seq_id must be provided when sampling_session_id is used/);
    const unknownSession = await raw("/api/v1/asample", { prompt: { chunks: [{ tokens: [1] }] }, sampling_session_id: "sampling_nope", seq_id: 0, sampling_params: { max_tokens: 2 } });
    expect(unknownSession.status).toBe(404);
    const badLoss = await raw("/api/v1/forward_backward", { model_id: modelId, seq_id: 2, forward_backward_input: { loss_fn: "dro", data: [datum([1, 2])] } });
    expect(badLoss.status).toBe(400);
    expect(badLoss.json.detail).toMatch(/loss_fn must be one of/);
    const oversized = await raw("/api/v1/forward", { model_id: modelId, seq_id: 2, forward_input: { loss_fn: "cross_entropy", data: new Array(1025).fill(datum([1, 2])) } });
    expect(oversized.status).toBe(413);
    expect(oversized.json.detail).toMatch(/at most 1024 per request/);
    const unknownFuture = await raw("/api/v1/retrieve_future", { request_id: "req_nope" });
    expect(unknownFuture.status).toBe(404);

    // Non-finite loss: the future fails with a user error.
    const nan = await raw("/api/v1/forward_backward", {
      model_id: modelId,
      seq_id: 2,
      forward_backward_input: {
        loss_fn: "importance_sampling",
        data: [{ ...datum([1, 2]), loss_fn_inputs: { ...datum([1, 2]).loss_fn_inputs, logprobs: { data: [-1e4, -1e4] }, advantages: { data: [1e30, 1e30] } } }],
      },
    });
    expect(nan.status).toBe(200);
    const nanResult = await settled(nan.json.request_id);
    expect(nanResult.json).toMatchObject({ category: "user" });
    expect(nanResult.json.error).toMatch(/not finite/);

    expect((await fetch(`${node.url}/api/v1/healthz`)).status).toBe(200);
  });

  it("answers its health check while a forward_backward is computing (training is off the event loop)", async () => {
    const client = new TinkerClient({ baseUrl: node.url, apiKey: API_KEY, retryBaseMs: 20 });
    await client.start(["test"]);
    const model = await client.createModel("tiny-gpt");
    const seq = Array.from({ length: 95 }, (_, i) => 1 + (i % 200));
    const datum = ppoDatum(seq.slice(0, 10), seq.slice(10), new Array(seq.length - 10).fill(-2), 1);
    await model.forwardBackward([datum], "ppo"); // warm up the gradient worker
    const pending = model.forwardBackward(Array.from({ length: 96 }, () => datum), "ppo");
    let done = false;
    void pending.then(() => (done = true));
    // Health answers arrive while the call is still computing: on the event loop it would answer none.
    let answeredWhileComputing = 0;
    for (let i = 0; i < 200 && !done; i++) {
      const res = await fetch(`${node.url}/api/v1/healthz`);
      if (res.status === 200 && !done) answeredWhileComputing++;
    }
    await pending;
    expect(answeredWhileComputing).toBeGreaterThan(1);
    // Every share ran on a gradient worker thread, none on the thread that serves HTTP.
    expect(node.service.trainingThreads()).toMatchObject({ mainThreadShares: 0 });
    expect(node.service.trainingThreads().workerShares).toBeGreaterThan(0);
  });

  it("the Tinker client surfaces failed futures as TinkerError", async () => {
    const client = new TinkerClient({ baseUrl: node.url, apiKey: API_KEY });
    await client.start();
    const model = await client.createModel("tiny-gpt");
    const err = await model.saveWeights("../escape").catch((e) => e);
    expect(err).toBeInstanceOf(TinkerError);
    expect(err.status).toBe(400);
    client.close();
  });

  it("serves OpenAI-compatible chat completions with logprobs", async () => {
    const openai = new OpenAI({ baseURL: `${node.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
    const models = await openai.models.list();
    expect(models.data.map((m) => m.id)).toContain("tiny-gpt");
    const res = await openai.chat.completions.create({
      model: "tiny-gpt",
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hello" },
      ],
      max_tokens: 8,
      temperature: 1,
      seed: 3,
      logprobs: true,
      n: 2,
    });
    expect(res.choices).toHaveLength(2);
    const c = res.choices[0];
    expect(["stop", "length"]).toContain(c.finish_reason);
    expect(c.logprobs!.content!.length).toBeGreaterThan(0);
    expect(Buffer.from(c.logprobs!.content!.flatMap((t) => t.bytes ?? [])).toString("utf8")).toBe(c.message.content);
    for (const t of c.logprobs!.content!) expect(t.logprob).toBeLessThanOrEqual(0);
    // published persistent sampler names work as `model`
    const published = await openai.chat.completions.create({ model: "step11", messages: [{ role: "user", content: "hi" }], max_tokens: 6, temperature: 0 });
    expect(published.choices[0].message.content).toBe("ok!");
    expect(published.choices[0].finish_reason).toBe("stop");
    await expect(openai.chat.completions.create({ model: "nope", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({ status: 404 });
    await expect(openai.chat.completions.create({ model: "tiny-gpt", messages: [] })).rejects.toMatchObject({ status: 400 });
    const noAuth = new OpenAI({ baseURL: `${node.url}/v1`, apiKey: "wrong-key-000", maxRetries: 0 });
    await expect(noAuth.models.list()).rejects.toMatchObject({ status: 401 });
  });
});
