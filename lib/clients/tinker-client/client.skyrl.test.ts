/**
 * Conformance of the Tinker client against SkyRL tx's contract (test/doubles/skyrl-tinker.ts): every
 * gap that would kill or silently neuter a run on a SkyRL node.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SkyRLDouble, type SkyRLDoubleOptions } from "../../../test/doubles/skyrl-tinker";
import { TinkerClient, TinkerError, type Datum, type TinkerClientOptions } from ".";

let double: SkyRLDouble | null = null;
const clients: TinkerClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await double?.close();
  double = null;
});

async function setup(opts: SkyRLDoubleOptions = {}, clientOpts: Partial<TinkerClientOptions> = {}) {
  double = await new SkyRLDouble({ latencyMs: 5, ...opts }).start();
  const client = new TinkerClient({ baseUrl: double.url, nodeName: "gpu-1", retryBaseMs: 5, log: () => {}, ...clientOpts });
  clients.push(client);
  await client.start(["test"]);
  return { double, client };
}

const ppo = (tokens: number[], extra: Partial<Datum["loss_fn_inputs"]> = {}): Datum => ({
  model_input: { chunks: [{ type: "encoded_text", tokens: tokens.slice(0, -1) }] },
  loss_fn_inputs: {
    target_tokens: { data: tokens.slice(1), dtype: "int64" },
    logprobs: { data: tokens.slice(1).map(() => -1), dtype: "float32" },
    advantages: { data: tokens.slice(1).map((_, i) => (i > 1 ? 0.5 : 0)), dtype: "float32" },
    ...extra,
  } as Datum["loss_fn_inputs"],
});

describe("TinkerClient against SkyRL tx", () => {
  it("bootstraps as SDK 0.25, recognises SkyRL and heartbeats at once (so an abandoned session can be reaped)", async () => {
    const { double, client } = await setup();
    expect(client.profile).toBe("skyrl-jax");
    expect(client.pollTimeoutMs).toBeGreaterThan(300_000); // past SkyRL's 300 s long poll
    expect(double.requests.find((r) => r.path === "create_session")?.body?.sdk_version).toBe("0.25.0");
    expect([...double.sessions.values()][0].lastHeartbeat).not.toBeNull();
  });

  it("trains: protobuf forward_backward in chunks within the limits, one seq_id each, outputs and metrics merged; loss without loss:sum", async () => {
    const { double, client } = await setup({ backend: "train" });
    const model = await client.createModel("Qwen/Qwen3-8B", { loraRank: 32 });
    const data = Array.from({ length: 1500 }, (_, i) => ppo([1, 2, 3, 4 + (i % 5), 9]));
    const fb = model.forwardBackward(data, "ppo", { clip_low_threshold: 0.8, clip_high_threshold: 1.2 });
    const opt = model.optimStep({ learning_rate: 1e-5, beta1: 0.9, beta2: 0.95, eps: 1e-12, weight_decay: 0, grad_clip_norm: 1 });
    const [out, o] = await Promise.all([fb, opt]);
    const posts = double.requests.filter((r) => r.path === "forward_backward");
    expect(posts).toHaveLength(2); // 1024 + 476 datums
    expect(posts.every((p) => p.contentType.includes("application/x-protobuf"))).toBe(true);
    expect(posts.map((p) => p.seqId)).toEqual([1, 2]);
    expect(double.requests.find((r) => r.path === "optim_step")?.seqId).toBe(3);
    expect(out.loss_fn_outputs).toHaveLength(1500);
    // total_loss:sum and num_tokens:sum are sums over the chunks; policy_lr:last is the last chunk's.
    expect(out.metrics["num_tokens:sum"]).toBe(1500 * 4);
    expect(out.metrics["total_loss:sum"]).toBeCloseTo(-1500 * 2 * 0.5, 3);
    expect(out.metrics["policy_lr:last"]).toBe(1e-5);
    expect(o.metrics).toEqual({ "skyrl.ai/grad_norm": 0.5, "skyrl.ai/learning_rate": 1e-5 });
    expect(double.trainedWithoutPolicyInputs).toEqual([]);
  });

  it("never sends a datum SkyRL would silently train as zeros or answer with a 500", async () => {
    const { double, client } = await setup();
    const model = await client.createModel("Qwen/Qwen3-8B");
    const { logprobs: _l, ...noLogprobs } = ppo([1, 2, 3]).loss_fn_inputs;
    await expect(model.forwardBackward([{ ...ppo([1, 2, 3]), loss_fn_inputs: noLogprobs }], "ppo")).rejects.toThrow(/datum 0: loss_fn_inputs.logprobs is required for loss_fn 'ppo'/);
    const { target_tokens: _t, ...noTargets } = ppo([1, 2, 3]).loss_fn_inputs;
    await expect(model.forwardBackward([{ ...ppo([1, 2, 3]), loss_fn_inputs: noTargets }], "cross_entropy")).rejects.toThrow(/target_tokens is required/);
    const short = ppo([1, 2, 3]);
    short.loss_fn_inputs.advantages.data = [0];
    await expect(model.forwardBackward([short], "ppo")).rejects.toThrow(/advantages has 1 values for 2 input tokens/);
    expect(double.requests.filter((r) => r.path === "forward_backward")).toHaveLength(0);
    // A rejected POST does not consume a seq_id: importance_sampling takes no loss_fn_config on SkyRL (422).
    await expect(model.forwardBackward([ppo([1, 2, 3])], "importance_sampling", { clip_low_threshold: 0.8 })).rejects.toMatchObject({ status: 422 });
    await model.optimStep({ learning_rate: 1e-5, beta1: 0.9, beta2: 0.95, eps: 1e-12, weight_decay: 0, grad_clip_norm: 0 });
    expect(double.requests.find((r) => r.path === "optim_step")?.seqId).toBe(1);
  });

  it("samples through sampling sessions with their own seq_ids, max_tokens always set and stop as a list", async () => {
    const { double, client } = await setup();
    const session = await client.createSamplingSession({ baseModel: "Qwen/Qwen3-8B" });
    const [a, b] = await Promise.all([session.sample([1, 2], { max_tokens: 10, stop: [7] }), session.sample([1, 2], { max_tokens: 10, stop: [7] })]);
    expect(a.sequences[0]).toMatchObject({ stop_reason: "stop", tokens: [100, 101, 102, 7] });
    expect(b.sequences[0].logprobs).toHaveLength(4);
    const sent = double.requests.filter((r) => r.path === "asample");
    expect(sent.map((r) => r.seqId).sort()).toEqual([0, 1]);
    expect(sent.every((r) => r.body?.sampling_session_id === session.id)).toBe(true);
    // SkyRL stops only at the tokens a request names.
    const unnamed = await session.sample([1, 2], { max_tokens: 6 });
    expect(unnamed.sequences[0]).toMatchObject({ stop_reason: "length" });
    expect(unnamed.sequences[0].tokens).toHaveLength(6);
    await expect(session.sample([1, 2], { max_tokens: 0 })).rejects.toThrow(/max_tokens must be a positive integer/);
  });

  it("rides out long polls: SkyRL's 408s and client-side poll timeouts are not failures", async () => {
    const { client } = await setup({ latencyMs: 600, holdMs: 100 }, { pollTimeoutMs: 150 });
    const session = await client.createSamplingSession({ baseModel: "Qwen/Qwen3-8B" });
    const r = await session.sample([1], { max_tokens: 2 });
    expect(r.sequences).toHaveLength(1);
    const { client: c2 } = await (async () => {
      await double!.close();
      return setup({ latencyMs: 500, holdMs: 10_000 }, { pollTimeoutMs: 60 });
    })();
    const s2 = await c2.createSamplingSession({ baseModel: "Qwen/Qwen3-8B" });
    expect((await s2.sample([1], { max_tokens: 2 })).sequences).toHaveLength(1);
  });

  it("fails a future that outlives the node's deadline, naming the setting", async () => {
    const { client } = await setup({ latencyMs: 5000, holdMs: 50 }, { futureDeadlineMs: 300 });
    const session = await client.createSamplingSession({ baseModel: "Qwen/Qwen3-8B" });
    await expect(session.sample([1], { max_tokens: 2 })).rejects.toThrow(/asample \d+ not done within 0 s \(node setting tinker.futureDeadlineS\)/);
  });

  it("surfaces SkyRL's failed futures (HTTP 400 {detail}) as failures, not retries", async () => {
    const { double, client } = await setup({ maxLoraRank: 32 });
    const err = await client.createModel("Qwen/Qwen3-8B", { loraRank: 64 }).catch((e) => e);
    expect(err).toBeInstanceOf(TinkerError);
    expect(err.kind).toBe("failed");
    expect(err.message).toMatch(/node "gpu-1": create_model failed: LoRA rank 64 must be between 1 and 32/);
    expect(double.requests.filter((r) => r.path === "retrieve_future")).toHaveLength(1);
  });

  it("recovers saves whose reply was lost: fresh names, no 409 kills the run", async () => {
    const { double, client } = await setup();
    const model = await client.createModel("Qwen/Qwen3-8B");
    double.dropReply("save_weights");
    const state = await model.saveWeights("run-step-1");
    expect(state.path).toMatch(/^tinker:\/\/model_\w+\/weights\/run-step-1-r\d+$/);
    double.dropReply("save_weights_for_sampler");
    const persistent = await model.saveWeightsForSampler("run-step-1");
    expect(persistent.path).toMatch(/^tinker:\/\/model_\w+\/run-step-1-r\d+$/);
    // Ephemeral: the retry's checkpoint id (ss<n>_seq<m>) collides, then its seq_id is taken; both are re-issued.
    double.dropReply("save_weights_for_sampler");
    const session = await model.saveWeightsForSamplerEphemeral();
    expect((await session.sample([1], { max_tokens: 5, stop: [7] })).sequences[0].stop_reason).toBe("stop");
    // Later ops still get fresh seq_ids.
    await model.optimStep({ learning_rate: 1e-5, beta1: 0.9, beta2: 0.95, eps: 1e-12, weight_decay: 0, grad_clip_norm: 0 });
    const seqs = double.requests.filter((r) => r.path === "optim_step").map((r) => r.seqId);
    const used = double.requests.filter((r) => r.path === "save_weights_for_sampler" && r.seqId !== null).map((r) => r.seqId!);
    expect(seqs[0]).toBeGreaterThan(Math.max(...used));
  });

  it("recovers a create_model whose reply was lost without leaking an adapter", async () => {
    const { double, client } = await setup({ sessionTimeoutMs: 300 }, { heartbeatMs: 50 });
    double.dropReply("create_model");
    const model = await client.createModel("Qwen/Qwen3-8B");
    expect(client.abandonedSessions).toHaveLength(1);
    expect(double.models.size).toBe(2); // SkyRL created one per POST
    await model.optimStep({ learning_rate: 1e-5, beta1: 0.9, beta2: 0.95, eps: 1e-12, weight_decay: 0, grad_clip_norm: 0 });
    // The abandoned session stops heartbeating; SkyRL's reaper unloads its model.
    await new Promise((r) => setTimeout(r, 700));
    double.reap();
    expect(double.liveAdapters()).toBe(1);
    expect(double.models.get(model.modelId)?.loaded).toBe(true);
  });

  it("validates every reply and names the node, the endpoint and the field", async () => {
    double = await new SkyRLDouble().start();
    const numericIds: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(input).endsWith("/asample")) return res;
      const body = (await res.json()) as { request_id: string };
      return new Response(JSON.stringify({ ...body, request_id: Number(body.request_id) }), { status: 200, headers: { "content-type": "application/json" } });
    };
    const client = new TinkerClient({ baseUrl: double.url, nodeName: "gpu-1", fetch: numericIds, log: () => {} });
    clients.push(client);
    await client.start();
    const session = await client.createSamplingSession({ baseModel: "Qwen/Qwen3-8B" });
    await expect(session.sample([1], { max_tokens: 2 })).rejects.toThrow(/node "gpu-1": POST \/api\/v1\/asample: unexpected reply \(request_id: Expected string, received number\)/);
  });

  it("retries a sample from a sampler checkpoint that is still being written (425) until it is", async () => {
    const { double, client } = await setup({ latencyMs: 300 });
    const model = await client.createModel("Qwen/Qwen3-8B");
    // Submit a persistent save without waiting for it, then sample from its path at once.
    const { requestId } = await client.submit("save_weights_for_sampler", { json: { model_id: model.modelId, seq_id: 1, path: "ck" } });
    const session = await client.createSamplingSession({ modelPath: `tinker://${model.modelId}/ck` });
    const r = await session.sample([1], { max_tokens: 2 });
    expect(r.sequences).toHaveLength(1);
    expect(double.requests.filter((x) => x.path === "asample").length).toBeGreaterThan(1); // the first got 425
    expect(requestId).toMatch(/^\d+$/);
  });

  it("load_weights is the first request of a model", async () => {
    const { client } = await setup();
    const model = await client.createModel("Qwen/Qwen3-8B");
    const state = await model.saveWeights("ck");
    await expect(model.loadWeights(state.path)).rejects.toThrow(/load_weights must be the first request/);
    const fresh = await client.createModel("Qwen/Qwen3-8B");
    await fresh.loadWeights(state.path);
  });
});
