/**
 * The node doctor against the strict embedded node (real tiny-gpt weights), SkyRL tx's contract
 * (test/doubles/skyrl-tinker.ts, with scripted models), a vLLM-like server (test/doubles/vllm-openai.ts)
 * and servers answering garbage — including nodes whose model does not match the renderer.
 */
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { promises as fs } from "node:fs";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { nodeSettingsSchema, type NodeSettings } from "../../contracts/node-settings";
import { DEFAULT_WEIGHTS_DIR, startNode, type RunningNode } from "../../worker/node/server";
import { SkyRLDouble } from "../../test/doubles/skyrl-tinker";
import { startVllmDouble, type VllmDouble, type VllmRequest } from "../../test/doubles/vllm-openai";
import { HfChatRenderer, loadRenderer } from "../renderers";
import { DOCTOR_MESSAGES, type DoctorReport, notTextReason, runDoctor } from ".";

const settings = (s: unknown = {}): NodeSettings => nodeSettingsSchema.parse(s);
const check = (r: DoctorReport, id: string) => {
  const c = r.checks.find((x) => x.check === id);
  if (!c) throw new Error(`no ${id} check in ${JSON.stringify(r.checks.map((x) => x.check))}`);
  return c;
};
const statuses = (r: DoctorReport) => Object.fromEntries(r.checks.map((c) => [c.check, c.status]));
const tinyCharset = path.resolve(import.meta.dirname, "../../test/fixtures/renderers/tiny-charset");

describe("the strict embedded node (real tiny-gpt weights, SkyRL-style 408 long polls)", () => {
  let node: RunningNode;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "doctor-node-"));
    node = await startNode({ port: 0, host: "127.0.0.1", dataDir, warmStartDir: DEFAULT_WEIGHTS_DIR, seed: 1, minFutureMs: 30, longPollMs: 10, pendingReply: "408" });
  });
  afterAll(async () => {
    await node?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it("passes every check a role needs, over both protocols; the loss-scale check proves the node's token sums with forward only", async () => {
    const r = await runDoctor({ kind: "embedded", url: node.url, nodeName: "embedded" }, "tiny-gpt", { timeoutMs: 30_000 });
    expect(r.ok, JSON.stringify(r.checks, null, 1)).toBe(true);
    expect(statuses(r)).toEqual({
      server: "ok",
      profile: "ok",
      model: "ok",
      "lora-rank": "ok",
      sampling: "ok",
      tokenizer: "ok",
      "loss-scale": "ok",
      models: "ok",
      chat: "ok",
      // The tiny model writes think tags into plain chat: reported, needed by no role.
      reasoning: expect.stringMatching(/^(ok|failed)$/),
      "tool-calling": "skipped",
    });
    expect(check(r, "profile").reason).toMatch(/^envace-embedded: the server announces itself/);
    expect(check(r, "sampling").reason).toMatch(/a sampling session on "tiny-gpt" returned \d+ tokens with per-token logprobs/);
    expect(check(r, "tokenizer").reason).toMatch(/ids inside the tiny-gpt byte vocabulary/);
    expect(check(r, "reasoning").neededBy).toEqual([]);
    expect(check(r, "chat").neededBy).toEqual(["tool simulator", "user simulator", "judge"]);
    expect(check(r, "sampling").neededBy).toEqual(["policy"]);
    expect(r.facts).toMatchObject({ servedModels: ["tiny-gpt"], profile: "envace-embedded", renderer: "tiny-gpt", contextLength: 1024 });
    // The node's own loss, from its forward: token sums of −A (ratio 1), in one request and split over two.
    expect(check(r, "loss-scale").reason).toMatch(/reported -5\.5\d*, expected -5\.5000 \(the token-sum modelled for server profile envace-embedded\); the same in two requests: -5\.5/);
    expect(check(r, "loss-scale").neededBy).toEqual(["policy"]);
    // The loss-scale check's training model is unloaded; sampling used the base model.
    expect((node.service as unknown as { models: Map<string, unknown> }).models.size).toBe(0);
  });

  it("flags a renderer whose vocabulary the node's ids do not fit, naming the renderer and the setting", async () => {
    const s = settings({ models: { "tiny-gpt": { renderer: "hf", tokenizer: tinyCharset } } });
    const r = await runDoctor({ kind: "embedded", url: node.url, nodeName: "mismatched", settings: s }, "tiny-gpt", { timeoutMs: 30_000 });
    expect(r.ok).toBe(false);
    expect(check(r, "sampling").status).toBe("ok");
    const t = check(r, "tokenizer");
    expect(t.status).toBe("failed");
    expect(t.reason).toMatch(/^tokenizer mismatch: node "mismatched" returned ids outside the tiny-charset vocabulary \(.*valid ids are 0–30, renderer "hf:.*tiny-charset"\) — the node's model does not use this renderer's tokenizer; set settings\.models\["tiny-gpt"\]\.renderer/);
  });

  it("fails the model check for a model the node does not serve and skips what needs it", async () => {
    const r = await runDoctor({ kind: "tinker", url: node.url, nodeName: "embedded" }, "Qwen/Qwen3-8B", { timeoutMs: 30_000 });
    expect(check(r, "model")).toMatchObject({ status: "failed", reason: 'node "embedded" does not serve "Qwen/Qwen3-8B"; it serves: tiny-gpt' });
    expect(statuses(r)).toMatchObject({ server: "ok", "lora-rank": "skipped", sampling: "skipped", tokenizer: "skipped" });
    expect(r.ok).toBe(false);
  });
});

describe("SkyRL tx's contract (scripted models)", () => {
  const qwen = loadRenderer("qwen3") as HfChatRenderer;
  const llama = loadRenderer("llama3.1") as HfChatRenderer;
  const reply = "Hello! How can I help you today?";
  const rendered = qwen.renderPrompt(DOCTOR_MESSAGES, { addGenerationPrompt: true, enableThinking: false });
  /** A model that knows Qwen3's rendering: likely in the rendered order, noise in any other. */
  const qwenScorer = (prompt: number[]) => prompt.slice(1).map((t, i) => (rendered[i + 1] === t && rendered[i] === prompt[i] ? -0.4 : -11.5));
  let double: SkyRLDouble | null = null;
  afterEach(async () => {
    await double?.close();
    double = null;
  });

  it("passes a Qwen3-8B node with Qwen3's ids, assuming (and saying) the JAX backend and its LoRA limit", async () => {
    double = await new SkyRLDouble({ sampleTokens: () => [...qwen.encode(reply), 151645], promptLogprobs: qwenScorer }).start();
    const r = await runDoctor({ kind: "tinker", url: double.url, nodeName: "skyrl" }, "Qwen/Qwen3-8B", { timeoutMs: 10_000 });
    expect(r.ok, JSON.stringify(r.checks, null, 1)).toBe(true);
    expect(check(r, "profile").reason).toMatch(/^skyrl-jax: GET \/ names SkyRL tx \(backend not advertised; JAX, its default, assumed\)/);
    expect(check(r, "lora-rank").reason).toMatch(/largest LoRA rank 32 \(SkyRL JAX's default max_lora_rank/);
    expect(r.facts.loraRankLimit).toBe(32);
    expect(check(r, "sampling").reason).toMatch(/ended at a stop token; stop ids sent: 151645, 151643/);
    expect(check(r, "tokenizer").reason).toMatch(/decoded: "Hello! How can I help you today\?"; the model scores the rendered prompt 11\.\d nats\/token above the same ids shuffled/);
    // JAX reports no loss metric: the per-token losses are checked, the reduction is the modelled one.
    expect(check(r, "loss-scale")).toMatchObject({ status: "ok", neededBy: ["policy"] });
    expect(check(r, "loss-scale").reason).toMatch(/reports no loss metric; its per-token losses are −A as modelled for skyrl-jax/);
    // One training model for the forward passes, unloaded afterwards: no adapter slot kept; nothing trained.
    expect([...double.models.values()].map((m) => m.loaded)).toEqual([false]);
    expect(double.requests.filter((q) => q.path === "optim_step")).toEqual([]);
    const sample = double.requests.find((q) => q.path === "asample")!;
    expect(sample.body).toMatchObject({ seq_id: 0, prompt_logprobs: true, sampling_params: { stop: [151645, 151643] } });
  });

  it("loss-scale: passes SkyRL-Train's token sums, in one request and split, and fails a server that averages per request or per token", async () => {
    const good = { backend: "train" as const, sampleTokens: () => [...qwen.encode(reply), 151645], promptLogprobs: qwenScorer };
    const s = settings({ tinker: { server: "skyrl-train" } });
    double = await new SkyRLDouble(good).start();
    const r = await runDoctor({ kind: "tinker", url: double.url, nodeName: "fsdp", settings: s }, "Qwen/Qwen3-8B", { timeoutMs: 10_000 });
    expect(check(r, "loss-scale").status, check(r, "loss-scale").reason).toBe("ok");
    expect(check(r, "loss-scale").reason).toMatch(/reported -5\.5000, expected -5\.5000 \(the token-sum modelled for server profile skyrl-train\); the same in two requests: -5\.5000/);
    // Only forward passes: 1 (logprobs) + 1 (both datums) + 2 (split).
    expect(double.requests.filter((q) => q.path === "forward_backward" || q.path === "forward")).toHaveLength(4);
    await double.close();

    double = await new SkyRLDouble({ ...good, lossReduction: "mean-per-request" }).start();
    const perRequest = await runDoctor({ kind: "tinker", url: double.url, nodeName: "fsdp", settings: s }, "Qwen/Qwen3-8B", { timeoutMs: 10_000 });
    expect(check(perRequest, "loss-scale").status).toBe("failed");
    expect(check(perRequest, "loss-scale").reason).toMatch(
      /^forward of 2 known datums reported loss -2\.7500, expected -5\.5000 \(the token-sum modelled for server profile skyrl-train; ratio 0\.5000\): the server reduces as a sum divided by the datums in the request \(a per-request mean\) — the run's loss and gradient would be scaled by 0\.5000/,
    );
    expect(perRequest.ok).toBe(false);
    await double.close();

    double = await new SkyRLDouble({ ...good, lossReduction: "token-mean" }).start();
    const tokenMean = await runDoctor({ kind: "tinker", url: double.url, nodeName: "fsdp", settings: s }, "Qwen/Qwen3-8B", { timeoutMs: 10_000 });
    expect(check(tokenMean, "loss-scale").reason).toMatch(/reported loss -0\.2750, expected -5\.5000 .*: the server reduces as a mean over every target token/);
  });

  it("loss-scale: a server with no adapter slot free reports the check as not measured, blocking no launch", async () => {
    double = await new SkyRLDouble({ sampleTokens: () => [...qwen.encode(reply), 151645], promptLogprobs: qwenScorer, maxLoraAdapters: 1 }).start();
    const r = await runDoctor({ kind: "tinker", url: double.url, nodeName: "busy" }, "Qwen/Qwen3-8B", { timeoutMs: 10_000 });
    expect(check(r, "loss-scale")).toMatchObject({ status: "skipped", neededBy: [] });
    expect(check(r, "loss-scale").reason).toMatch(/^not measured: the server did not create a training model .*Maximum number of LoRA adapters \(1\) reached.*skyrl-jax \(per-datum-mean\) unverified/);
    expect(r.ok).toBe(true);
  });

  it("flags a node whose sampled ids are not text under the renderer (the double's byte-range ids)", async () => {
    double = await new SkyRLDouble().start();
    const r = await runDoctor({ kind: "tinker", url: double.url, nodeName: "skyrl" }, "Qwen/Qwen3-8B", { timeoutMs: 10_000 });
    expect(check(r, "sampling").status).toBe("ok");
    expect(check(r, "tokenizer")).toMatchObject({ status: "failed" });
    expect(check(r, "tokenizer").reason).toMatch(/^tokenizer mismatch: the sample decodes to non-text under renderer "qwen3" \(\d+ of \d+ decoded characters are undecodable/);
    expect(r.ok).toBe(false);
  });

  it("flags ids outside the renderer's vocabulary: a Qwen3 node rendered for as Llama 3.1", async () => {
    double = await new SkyRLDouble({ sampleTokens: () => [...qwen.encode(reply), 151645] }).start();
    const s = settings({ models: { "Qwen/Qwen3-8B": { renderer: "llama3.1" } } });
    const r = await runDoctor({ kind: "tinker", url: double.url, nodeName: "gpu-1", settings: s }, "Qwen/Qwen3-8B", { timeoutMs: 10_000 });
    expect(check(r, "tokenizer").reason).toMatch(/^tokenizer mismatch: node "gpu-1" returned ids outside the Llama 3\.1 vocabulary \(151645; valid ids are 0–128255, renderer "llama3\.1"\)/);
  });

  it("flags a model that reads the rendered prompt as noise: Llama 3.1 ids behind a Qwen3 renderer", async () => {
    // The ids fit Qwen3's larger vocabulary and decode to (meaningless) text; only the model's own scores tell.
    double = await new SkyRLDouble({
      baseModel: "Qwen/Qwen3-8B",
      sampleTokens: () => [...llama.encode(reply), 128009],
      promptLogprobs: (prompt) => prompt.slice(1).map(() => -11.8),
    }).start();
    const r = await runDoctor({ kind: "tinker", url: double.url, nodeName: "gpu-2" }, "Qwen/Qwen3-8B", { timeoutMs: 10_000 });
    const t = check(r, "tokenizer");
    expect(t.status).toBe("failed");
    expect(t.reason).toMatch(/^tokenizer mismatch: the node's model finds the prompt rendered by "qwen3" no more likely than the same ids shuffled \(mean log-probability -11\.80 vs -11\.80/);
  });

  it("flags a tinker.server setting that contradicts the server", async () => {
    double = await new SkyRLDouble({ sampleTokens: () => [...qwen.encode(reply), 151645] }).start();
    const r = await runDoctor({ kind: "tinker", url: double.url, nodeName: "skyrl", settings: settings({ tinker: { server: "tinker" } }) }, "Qwen/Qwen3-8B", { timeoutMs: 10_000 });
    expect(check(r, "profile")).toMatchObject({ status: "failed" });
    expect(check(r, "profile").reason).toMatch(/tinker\.server setting says tinker \(hosted Tinker\), but GET \/ names SkyRL tx/);
    expect(r.ok).toBe(false);
  });

  it("a tokenizer directory that is missing fails the tokenizer check naming the directory; sampling is not attempted", async () => {
    double = await new SkyRLDouble({ sampleTokens: () => [...qwen.encode(reply), 151645] }).start();
    const s = settings({ models: { "Qwen/Qwen3-8B": { renderer: "qwen3", tokenizer: "/nonexistent/qwen3-tokenizer" } } });
    const r = await runDoctor({ kind: "tinker", url: double.url, nodeName: "skyrl", settings: s }, "Qwen/Qwen3-8B", { timeoutMs: 10_000 });
    expect(check(r, "tokenizer")).toMatchObject({ status: "failed", reason: expect.stringMatching(/\/nonexistent\/qwen3-tokenizer/) });
    expect(check(r, "sampling")).toMatchObject({ status: "skipped", reason: "needs the model's renderer to build a prompt" });
    expect(double.requests.some((q) => q.path === "asample")).toBe(false);
  });

  it("reports the node setting's LoRA limit over the backend default", async () => {
    double = await new SkyRLDouble({ sampleTokens: () => [...qwen.encode(reply), 151645] }).start();
    const r = await runDoctor({ kind: "tinker", url: double.url, nodeName: "skyrl", settings: settings({ tinker: { maxLoraRank: 8 } }) }, "Qwen/Qwen3-8B", { timeoutMs: 10_000 });
    expect(r.facts.loraRankLimit).toBe(8);
    expect(check(r, "lora-rank").reason).toMatch(/largest LoRA rank 8 \(the node's tinker\.maxLoraRank\)/);
  });
});

describe("a vLLM-like OpenAI-compatible server", () => {
  const MODEL = "Qwen/Qwen3-30B-A3B";
  const doubles: VllmDouble[] = [];
  afterEach(async () => {
    for (const d of doubles.splice(0)) await d.close();
  });
  /** A model that calls the offered tool, and thinks before a plain answer. */
  const toolUser = (req: VllmRequest) =>
    req.tools?.length
      ? '<think>The user wants the weather.</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
      : "<think>A greeting.</think>\n\nHello there!";
  const start = async (opts: Partial<Parameters<typeof startVllmDouble>[0]> = {}) => {
    const d = await startVllmDouble({ model: MODEL, respond: toolUser, ...opts });
    doubles.push(d);
    return d;
  };

  it("passes: /v1/models, a chat round trip, reasoning in its own field, tools sent and tool_calls back", async () => {
    const d = await start({ apiKey: "sk-node" });
    const s = settings({ openai: { extraBody: { top_k: 20 } } });
    const r = await runDoctor({ kind: "openai", url: d.url, apiKey: "sk-node", nodeName: "judge", settings: s }, MODEL, { timeoutMs: 10_000 });
    expect(r.ok, JSON.stringify(r.checks, null, 1)).toBe(true);
    expect(statuses(r)).toEqual({ models: "ok", chat: "ok", reasoning: "ok", "tool-calling": "ok" });
    expect(check(r, "tool-calling").reason).toBe('tools sent, tool_calls back: get_weather({"city": "Paris"})');
    expect(check(r, "reasoning").reason).toMatch(/reasoning came back in its own field/);
    expect(check(r, "chat").reason).toMatch(/"Hello there!"/);
    // Requests go out as the node's runs would send them (vendor extras included).
    expect(d.requests.every((q) => q.top_k === 20)).toBe(true);
    expect(d.requests[1]!.tools?.[0]?.function.name).toBe("get_weather");
  });

  it("fails tool calling on a server started without a tool parser, saying which flags fix it", async () => {
    const d = await start({ toolParser: null });
    const r = await runDoctor({ kind: "openai", url: d.url, nodeName: "vllm" }, MODEL, { timeoutMs: 10_000 });
    const t = check(r, "tool-calling");
    expect(t.status).toBe("failed");
    expect(t.reason).toMatch(/HTTP 400: "auto" tool choice requires --enable-auto-tool-choice.*\(vLLM: start with --enable-auto-tool-choice --tool-call-parser hermes\)/);
    expect(t.neededBy).toEqual(["policy"]);
    expect(r.ok).toBe(false);
  });

  it("fails tool calling when the call comes back as text instead of tool_calls", async () => {
    const d = await start({
      mangle: (body) => {
        const choice = (body.choices as { message: Record<string, unknown>; finish_reason: string }[])[0]!;
        if (choice.message.tool_calls) {
          choice.message = { role: "assistant", content: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>' };
          choice.finish_reason = "stop";
        }
        return body;
      },
    });
    const r = await runDoctor({ kind: "openai", url: d.url, nodeName: "sglang" }, MODEL, { timeoutMs: 10_000 });
    expect(check(r, "tool-calling").reason).toMatch(/the model wrote a <tool_call> block but the server returned it as text, not tool_calls/);
  });

  it("fails tool calling when the model answers without calling the tool", async () => {
    const d = await start({ respond: () => "<think>No.</think>\n\nI cannot check the weather." });
    const r = await runDoctor({ kind: "openai", url: d.url, nodeName: "vllm" }, MODEL, { timeoutMs: 10_000 });
    expect(check(r, "tool-calling").reason).toMatch(/answered in text without calling the offered tool \("I cannot check the weather\."\): a policy on this node would never act/);
  });

  it("warns (needed by no role) when reasoning comes back inside the answer", async () => {
    const d = await start({ reasoningParser: null });
    const r = await runDoctor({ kind: "openai", url: d.url, nodeName: "vllm" }, MODEL, { timeoutMs: 10_000 });
    expect(check(r, "reasoning")).toMatchObject({ status: "failed", neededBy: [] });
    expect(check(r, "reasoning").reason).toMatch(/--reasoning-parser qwen3/);
    expect(r.ok).toBe(true);
  });

  it("fails /v1/models for a model the node does not serve, and for a wrong API key", async () => {
    const d = await start({ apiKey: "sk-right" });
    const wrongModel = await runDoctor({ kind: "openai", url: d.url, apiKey: "sk-right", nodeName: "vllm" }, "Qwen/Qwen3-8B", { timeoutMs: 10_000 });
    expect(check(wrongModel, "models").reason).toBe(`node "vllm" does not serve "Qwen/Qwen3-8B"; /v1/models lists: ${MODEL}`);
    expect(statuses(wrongModel)).toMatchObject({ chat: "skipped", "tool-calling": "skipped" });
    const wrongKey = await runDoctor({ kind: "openai", url: d.url, apiKey: "sk-wrong", nodeName: "vllm" }, MODEL, { timeoutMs: 10_000 });
    expect(check(wrongKey, "models").reason).toMatch(/GET \/v1\/models answered HTTP 401 \(check the node's API key\)/);
  });
});

describe("servers answering garbage", () => {
  let server: http.Server;
  let url: string;
  let answer: (path: string) => { status: number; type: string; body: string };
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const a = answer(req.url ?? "/");
      res.writeHead(a.status, { "content-type": a.type });
      res.end(a.body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("an HTML page on every path fails the first check of each protocol, naming the endpoint", async () => {
    answer = () => ({ status: 200, type: "text/html", body: "<html><body>It works!</body></html>" });
    const r = await runDoctor({ kind: "embedded", url, nodeName: "apache" }, "tiny-gpt", { timeoutMs: 5_000 });
    expect(check(r, "server").reason).toMatch(/^the Tinker API did not answer as the protocol defines it: node "apache": POST \/api\/v1\/client\/config: reply is not JSON: <html>/);
    expect(check(r, "models").reason).toMatch(/GET \/v1\/models did not return JSON/);
    expect(statuses(r)).toMatchObject({ profile: "skipped", sampling: "skipped", chat: "skipped" });
    expect(r.ok).toBe(false);
  });

  it("JSON of an unknown shape fails with the field that is wrong", async () => {
    answer = (p) =>
      p.endsWith("get_server_capabilities")
        ? { status: 200, type: "application/json", body: JSON.stringify({ models: ["x"] }) }
        : p === "/v1/models"
          ? { status: 200, type: "application/json", body: JSON.stringify({ data: [{ name: "x" }] }) }
          : { status: 200, type: "application/json", body: "{}" };
    const r = await runDoctor({ kind: "embedded", url, nodeName: "odd" }, "x", { timeoutMs: 5_000 });
    expect(check(r, "server").reason).toMatch(/GET \/api\/v1\/get_server_capabilities: unexpected reply \(supported_models: Required\)/);
    expect(check(r, "models").reason).toMatch(/unexpected shape \(data\.0\.id: Required\)/);
  });

  it("a sampler that answers with a malformed result fails the sampling check", async () => {
    const d = await new SkyRLDouble().start();
    try {
      // A proxy that asks for JSON results and strips the logprobs the policy trains with.
      const r = await runDoctor({ kind: "tinker", url: d.url, nodeName: "skyrl" }, "Qwen/Qwen3-8B", {
        timeoutMs: 10_000,
        fetch: async (input, init) => {
          if (!String(input).endsWith("retrieve_future")) return fetch(input, init);
          const { accept: _, ...headers } = (init?.headers ?? {}) as Record<string, string>;
          const res = await fetch(input, { ...init, headers });
          const body = (await res.json()) as { sequences?: { logprobs?: unknown }[] };
          for (const s of body.sequences ?? []) delete s.logprobs;
          return new Response(JSON.stringify(body), { status: res.status, headers: { "content-type": "application/json" } });
        },
      });
      expect(check(r, "sampling")).toMatchObject({ status: "failed" });
      expect(check(r, "sampling").reason).toMatch(/returned \d+ tokens without one finite log-probability ≤ 0 per token/);
    } finally {
      await d.close();
    }
  });
});

describe("notTextReason", () => {
  it("accepts text and a stray replacement character, refuses byte soup", () => {
    expect(notTextReason("Hello! How can I help?")).toBeNull();
    expect(notTextReason("naïve café — ok \uFFFD fine and more words here")).toBeNull();
    expect(notTextReason("\uFFFD\uFFFD\uFFFDa")).toBe("3 of 4 decoded characters are undecodable bytes or control characters");
  });
});
