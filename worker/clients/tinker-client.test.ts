/**
 * Conformance of the Tinker client against the strict embedded node (the suite's server): transport
 * retries, long polls, chunk limits, sampling sessions, save collisions, the protobuf and JSON wires.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import os from "node:os";
import path from "node:path";
import { promises as fs } from "node:fs";
import { startNode, type NodeServerOptions, type RunningNode } from "../node/server";
import { VOCAB_SIZE } from "../../lib/renderers/tiny-gpt/tokenizer";
import { TinkerClient, TinkerError, type Datum } from "../../lib/clients/tinker-client";
import { untypedFutureReply } from "../../lib/clients/tinker-wire";

const CFG = { vocabSize: VOCAB_SIZE, contextLength: 32, nLayer: 1, nHead: 2, dModel: 8 };
let node: RunningNode;
const extra: RunningNode[] = [];
const clients: TinkerClient[] = [];

async function newNode(opts: Partial<NodeServerOptions> = {}): Promise<RunningNode> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "client-"));
  return startNode({ port: 0, host: "127.0.0.1", dataDir, baseConfig: CFG, longPollMs: 100, trainThreads: 1, ...opts });
}
function client(url: string, opts: Partial<ConstructorParameters<typeof TinkerClient>[0]> = {}): TinkerClient {
  const c = new TinkerClient({ baseUrl: url, nodeName: "embedded", retryBaseMs: 5, log: () => {}, ...opts });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  node = await newNode();
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const n of extra.splice(0)) await n.close();
});
afterAll(async () => {
  await node?.close();
});

/** Real fetch to the real node, with scripted transient failures in front of chosen calls. */
function flakyFetch(script: Array<{ path: string; times: number; respond: () => Response }>) {
  const calls: string[] = [];
  const impl: typeof fetch = async (input, init) => {
    const url = String(input);
    calls.push(url);
    for (const s of script) {
      if (url.endsWith(s.path) && s.times > 0) {
        s.times--;
        return s.respond();
      }
    }
    return fetch(input, init);
  };
  return { impl, calls };
}

const ce = (tokens: number[]): Datum => ({
  model_input: { chunks: [{ type: "encoded_text", tokens: tokens.slice(0, -1) }] },
  loss_fn_inputs: { target_tokens: { data: tokens.slice(1), dtype: "int64" } },
});

describe("TinkerClient transport", () => {
  it("retries 503 and 429 (honouring retry-after-ms) and polls through try_again", async () => {
    const { impl, calls } = flakyFetch([
      { path: "/create_session", times: 2, respond: () => new Response(JSON.stringify({ detail: "busy" }), { status: 503 }) },
      { path: "/asample", times: 1, respond: () => new Response("{}", { status: 429, headers: { "retry-after-ms": "10" } }) },
      { path: "/retrieve_future", times: 2, respond: () => new Response(JSON.stringify({ type: "try_again", request_id: "x", queue_state: "active" })) },
    ]);
    const c = client(node.url, { fetch: impl });
    await c.start();
    expect(c.profile).toBe("envace-embedded");
    const res = await c.sample({ baseModel: "tiny-gpt" }, [1, 2], { max_tokens: 3, seed: 1 });
    expect(res.sequences[0].tokens).toHaveLength(3);
    expect(calls.filter((u) => u.endsWith("/create_session"))).toHaveLength(3);
    expect(calls.filter((u) => u.endsWith("/asample"))).toHaveLength(2);
    expect(calls.filter((u) => u.endsWith("/retrieve_future")).length).toBeGreaterThanOrEqual(3);
  });

  it("does not retry a 4xx, gives up after maxRetries, and times out", async () => {
    const c = client(node.url, { maxRetries: 2 });
    await c.start();
    const err = await c.submit("create_model", { json: { session_id: c.session, base_model: "nope", lora_config: { rank: 8 } } }).catch((e) => e);
    expect(err).toBeInstanceOf(TinkerError);
    expect(err.status).toBe(404);
    expect(err.message).toMatch(/node "embedded": POST \/api\/v1\/create_model: HTTP 404 unknown base model 'nope'/);

    const always503 = flakyFetch([{ path: "/asample", times: 99, respond: () => new Response("{}", { status: 503 }) }]);
    const c2 = client(node.url, { fetch: always503.impl, maxRetries: 2 });
    await c2.start();
    await expect(c2.sample({ baseModel: "tiny-gpt" }, [1], { max_tokens: 1 })).rejects.toMatchObject({ status: 503 });
    expect(always503.calls.filter((u) => u.endsWith("/asample"))).toHaveLength(3);

    const hanging: typeof fetch = (_input, init) => new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    const c3 = client(node.url, { fetch: hanging, timeoutMs: 20, maxRetries: 0 });
    await expect(c3.start()).rejects.toThrow(/client\/config: timeout after 20 ms/);
  });

  it("keeps polling a future that stays pending past its per-request timeout (not a failure)", async () => {
    const slow = await newNode({ minFutureMs: 700, longPollMs: 5000 });
    extra.push(slow);
    const c = client(slow.url, { pollTimeoutMs: 80, maxRetries: 0 });
    await c.start();
    const t0 = Date.now();
    const res = await c.sample({ baseModel: "tiny-gpt" }, [1, 2], { max_tokens: 2, seed: 1 });
    expect(res.sequences[0].tokens).toHaveLength(2);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
  });

  it("treats SkyRL-style 408 long-poll ends as 'poll again'", async () => {
    const slow = await newNode({ minFutureMs: 500, longPollMs: 50, pendingReply: "408" });
    extra.push(slow);
    const c = client(slow.url);
    await c.start();
    const pending = await fetch(`${slow.url}/api/v1/retrieve_future`, {
      method: "POST",
      body: JSON.stringify({ request_id: (await c.submit("asample", { json: { base_model: "tiny-gpt", prompt: { chunks: [{ tokens: [1] }] }, sampling_params: { max_tokens: 1 } } })).requestId }),
    });
    expect(pending.status).toBe(408);
    const res = await c.sample({ baseModel: "tiny-gpt" }, [1, 2], { max_tokens: 2, seed: 1 });
    expect(res.sequences[0].tokens).toHaveLength(2);
  });
});

describe("TinkerClient on the strict node", () => {
  it("chunks forward_backward to the advertised limits: one seq_id per chunk, outputs in order, metrics merged", async () => {
    const small = await newNode({ maxChunkDatums: 3 });
    extra.push(small);
    const c = client(small.url);
    await c.start();
    expect(c.config.fwdbwd_max_chunk_len).toBe(3);
    const model = await c.createModel("tiny-gpt", { loraRank: 8 });
    // Without chunking the node refuses the request (413): the client must split.
    const refused = await c
      .submit("forward_backward", { json: { model_id: model.modelId, seq_id: 1, forward_backward_input: { loss_fn: "cross_entropy", data: [1, 2, 3, 4].map(() => ce([1, 2, 3])) } } })
      .catch((e) => e);
    expect(refused.status).toBe(413);
    const data = Array.from({ length: 7 }, (_, i) => ce([1, 2, 3, 4 + i]));
    const out = await model.forwardBackward(data, "cross_entropy");
    expect(model.sentBodies).toHaveLength(3);
    expect(out.loss_fn_outputs).toHaveLength(7);
    expect(out.metrics["tokens:sum"]).toBe(7 * 3);
    // Forward on one datum at a time gives the same per-datum logprobs, in the same order.
    const last = await model.forward([data[6]], "cross_entropy");
    expect(last.loss_fn_outputs[0].logprobs.data).toEqual(out.loss_fn_outputs[6].logprobs.data.map((x) => expect.closeTo(x, 5)));
    const opt = await model.optimStep({ learning_rate: 0.01, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 });
    expect(opt.metrics?.step).toBe(1);
    expect(model.pendingSeqId).toBe(6); // chunks 1-3, forward 4, optim 5
  });

  it("speaks the JSON wire too (servers of the JSON era)", async () => {
    const c = client(node.url, { wire: "json" });
    await c.start();
    const model = await c.createModel("tiny-gpt", { loraRank: 8 });
    const out = await model.forwardBackward([ce([1, 2, 3])], "cross_entropy");
    expect(out.loss_fn_outputs[0].logprobs.data).toHaveLength(2);
  });

  it("sampling sessions: each request its own seq_id; a reused seq_id with another payload is refused", async () => {
    const c = client(node.url);
    await c.start();
    const session = await c.createSamplingSession({ baseModel: "tiny-gpt" });
    const rs = await Promise.all([1, 2, 3].map((k) => session.sample([1, k], { max_tokens: 2, seed: k })));
    expect(rs.every((r) => r.sequences[0].tokens.length === 2)).toBe(true);
    const again = (seq: number, prompt: number[]) =>
      c.submit("asample", { json: { sampling_session_id: session.id, seq_id: seq, prompt: { chunks: [{ tokens: prompt }] }, sampling_params: { max_tokens: 2, seed: 1 } } });
    const first = await again(10, [1]);
    expect((await again(10, [1])).requestId).toBe(first.requestId); // an idempotent retry
    await expect(again(10, [2])).rejects.toMatchObject({ status: 409 });
  });

  it("duplicate checkpoint names: the node answers 409, the client re-issues under a fresh name", async () => {
    const c = client(node.url);
    await c.start();
    const model = await c.createModel("tiny-gpt", { loraRank: 8 });
    const a = await model.saveWeights("same");
    const b = await model.saveWeights("same");
    expect(a.path).toMatch(/\/weights\/same$/);
    expect(b.path).toMatch(/\/weights\/same-r1$/);
    const raw = await c.submit("save_weights", { json: { model_id: model.modelId, seq_id: model.pendingSeqId, path: "same" } }).catch((e) => e);
    expect(raw.status).toBe(409);
    // The rejected save did not consume its seq_id.
    await model.optimStep({ learning_rate: 0.01, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 });
  });

  it("load_weights only as a model's first request, a retry of the load included", async () => {
    const c = client(node.url);
    await c.start();
    const model = await c.createModel("tiny-gpt", { loraRank: 8 });
    const state = await model.saveWeights("ck");
    const fresh = await c.createModel("tiny-gpt", { loraRank: 8 });
    const body = { json: { model_id: fresh.modelId, seq_id: 1, path: state.path, optimizer: true } };
    await c.submit("load_weights", body);
    await expect(c.submit("load_weights", body)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/only allowed as the first request/) });
  });

  it("replies are validated: a reply of the wrong shape names the endpoint and the field", async () => {
    const c = client(node.url);
    await c.start();
    await expect(c.call("GET", "healthz", null, untypedFutureReply)).rejects.toThrow(/node "embedded": GET \/api\/v1\/healthz: unexpected reply \(request_id: Required\)/);
  });
});
