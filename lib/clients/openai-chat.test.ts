import http from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { nodeSettingsSchema, parseNodeSettings } from "../../contracts/node-settings";
import { startVllmDouble, type VllmDouble, type VllmDoubleOptions } from "../../test/doubles/vllm-openai";
import type { ToolSchema } from "../../worker/engine/io";
import { completionSchema, createOpenAIChatClient, isWellFormedCompletion, retryAfterMs, type OpenAIChatOptions } from "./openai-chat";

const MODEL = "Qwen/Qwen3-30B-A3B";
const tools: ToolSchema[] = [{ type: "function", function: { name: "get_item", parameters: { type: "object", properties: { item: { type: "string" } } } } }];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const doubles: VllmDouble[] = [];
async function vllm(opts: Partial<VllmDoubleOptions> & Pick<VllmDoubleOptions, "respond">) {
  // Plain scripted texts by default; tests of reasoning turn vLLM's qwen3 reasoning parser on.
  const d = await startVllmDouble({ model: MODEL, reasoningParser: null, ...opts });
  doubles.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(doubles.splice(0).map((d) => d.close()));
});

let nodeCounter = 0;
function client(d: { url: string }, opts: Partial<OpenAIChatOptions> = {}) {
  return createOpenAIChatClient({ baseUrl: `${d.url}/v1`, model: MODEL, nodeName: `node-${++nodeCounter}`, ...opts });
}

const THINK_AND_CALL = '<think>\nThe user wants the lamp.\n</think>\n\nChecking.\n<tool_call>\n{"name": "get_item", "arguments": {"item": "lamp", "qty": 2}}\n</tool_call>';

describe("OpenAIChatClient against a vLLM-like node", () => {
  it("sends tools, vendor extras and sampling; reads back tool_calls and the separated reasoning", async () => {
    const d = await vllm({ respond: () => THINK_AND_CALL, reasoningParser: "qwen3" });
    const chat = client(d, { settings: { extraBody: { chat_template_kwargs: { enable_thinking: true }, top_k: 20 } } });
    const reply = await chat.complete({ messages: [{ role: "user", content: "lamp?" }], tools, temperature: 0.6, topP: 0.95, maxTokens: 300, seed: 7 });
    expect(reply).toEqual({
      text: "Checking.\n",
      reasoning: "\nThe user wants the lamp.\n",
      toolCalls: [{ id: expect.stringMatching(/^chatcmpl-tool-/), name: "get_item", arguments: '{"item": "lamp", "qty": 2}' }],
      finishReason: "tool_calls",
    });
    expect(d.requests[0]).toMatchObject({
      model: MODEL,
      tools,
      temperature: 0.6,
      top_p: 0.95,
      max_tokens: 300,
      seed: 7,
      top_k: 20,
      chat_template_kwargs: { enable_thinking: true },
    });
    expect(d.requests[0].stream).toBeUndefined();
    expect(d.ignoredFields.size).toBe(0);

    // Older vLLM and SGLang name the field reasoning_content; no reasoning parser leaves think tags in the content.
    const older = await vllm({ respond: () => "<think>hm</think>Hello", reasoningParser: "qwen3", reasoningField: "reasoning_content" });
    expect(await client(older).complete({ messages: [{ role: "user", content: "hi" }] })).toEqual({ text: "Hello", reasoning: "hm", finishReason: "stop" });
    const noParser = await vllm({ respond: () => "<think>hm</think>Hello", reasoningParser: null });
    expect(await client(noParser).complete({ messages: [{ role: "user", content: "hi" }] })).toEqual({ text: "<think>hm</think>Hello", finishReason: "stop" });
  });

  it("streams: the assembled reply equals the non-streamed one", async () => {
    const d = await vllm({ respond: () => THINK_AND_CALL, reasoningParser: "qwen3", streamChunkChars: 3 });
    const req = { messages: [{ role: "user" as const, content: "lamp?" }], tools };
    const plain = await client(d).complete(req);
    const streamed = await client(d, { settings: { stream: true } }).complete(req);
    expect(d.requests[1].stream).toBe(true);
    expect({ ...streamed, toolCalls: streamed.toolCalls!.map(({ id: _id, ...c }) => c) }).toEqual({ ...plain, toolCalls: plain.toolCalls!.map(({ id: _id, ...c }) => c) });
  });

  it("waits out 429s as Retry-After says, each wait capped by maxRetryWaitS, at most maxRetries times", async () => {
    const d = await vllm({ respond: () => "ok", rateLimit: { count: 2, retryAfterS: 3 } });
    const waits: number[] = [];
    const recordSleep = async (ms: number) => void waits.push(ms);
    expect((await client(d, { sleep: recordSleep }).complete({ messages: [{ role: "user", content: "hi" }] })).text).toBe("ok");
    expect(waits).toEqual([3000, 3000]);
    expect(d.stats.rateLimited).toBe(2);

    const capped = await vllm({ respond: () => "ok", rateLimit: { count: 1, retryAfterS: 600 } });
    waits.length = 0;
    await client(capped, { sleep: recordSleep, settings: { maxRetryWaitS: 2 } }).complete({ messages: [{ role: "user", content: "hi" }] });
    expect(waits).toEqual([2000]);

    const busy = await vllm({ respond: () => "ok", rateLimit: { count: 10, retryAfterS: 1 } });
    waits.length = 0;
    const nodeName = "busy-judge";
    await expect(client(busy, { nodeName, sleep: recordSleep, settings: { maxRetries: 2 } }).complete({ messages: [{ role: "user", content: "hi" }] })).rejects.toThrow(
      /node "busy-judge" \(model Qwen\/Qwen3-30B-A3B\): HTTP 429 after 3 attempts: Too many requests/,
    );
    expect(waits).toEqual([1000, 1000]);
  });

  it("backs off without Retry-After, and does not retry a request the node refuses", async () => {
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250" }))).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 21 Oct 2015 07:28:10 GMT" }), Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(10_000);
    expect(retryAfterMs(new Headers())).toBeUndefined();

    const noParser = await vllm({ respond: () => "x", toolParser: null });
    const waits: number[] = [];
    await expect(client(noParser, { sleep: async (ms) => void waits.push(ms) }).complete({ messages: [{ role: "user", content: "hi" }], tools })).rejects.toThrow(
      /HTTP 400: "auto" tool choice requires --enable-auto-tool-choice/,
    );
    expect(waits).toEqual([]);

    // A node that is down: connection errors are retried with growing waits, then reported.
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const down = createOpenAIChatClient({ baseUrl: `http://127.0.0.1:${port}/v1`, model: MODEL, nodeName: "down", sleep: async (ms) => void waits.push(ms), settings: { maxRetries: 3 } });
    await expect(down.complete({ messages: [{ role: "user", content: "hi" }] })).rejects.toThrow(/node "down" .*cannot reach the node after 4 attempts/);
    expect(waits).toHaveLength(3);
    expect(waits[2]).toBeGreaterThan(waits[0]);
  });

  it("caps the requests in flight to one node across every client of it in the process", async () => {
    const d = await vllm({ respond: async () => (await sleep(80), "ok") });
    const judge = client(d, { nodeName: "shared", settings: { maxConcurrency: 2 } });
    const simulator = client(d, { nodeName: "shared", settings: { maxConcurrency: 2 } });
    const calls = Array.from({ length: 10 }, (_, i) => (i % 2 ? judge : simulator).complete({ messages: [{ role: "user", content: `q${i}` }] }));
    expect((await Promise.all(calls)).every((r) => r.text === "ok")).toBe(true);
    expect(d.stats.maxInFlight).toBe(2);

    // The limit counts from when the request is sent: queued calls do not time out while they wait.
    const slow = await vllm({ respond: async () => (await sleep(600), "ok") });
    const one = client(slow, { settings: { maxConcurrency: 1, requestTimeoutS: 1 } });
    const both = await Promise.all([0, 1, 2].map(() => one.complete({ messages: [{ role: "user", content: "hi" }], timeoutMs: 1000 })));
    expect(both.map((r) => r.text)).toEqual(["ok", "ok", "ok"]);
    expect(slow.stats.maxInFlight).toBe(1);
  });

  it("gives a slow reasoning judge the time its token budget needs, streamed or not, and cuts a stalled stream", async () => {
    // ~2 s to write the verdict: 40 chunks, 50 ms apart when streamed; the same time in one piece otherwise.
    const verdict = `<think>\n${"reasoning ".repeat(30)}\n</think>\n\n{"answer": true}`;
    const judge = await vllm({ reasoningParser: "qwen3", streamChunkDelayMs: 50, streamChunkChars: 8, respond: async (req) => (req.stream ? verdict : (await sleep(2000), verdict)) });
    const ask = { messages: [{ role: "user" as const, content: "judge this" }], maxTokens: 100, timeoutMs: 1000 };

    await expect(client(judge, { nodeName: "judge-fast-assumed", settings: { requestTimeoutS: 1, minDecodeTokensPerS: 1000 } }).complete(ask)).rejects.toThrow(
      /node "judge-fast-assumed" .*no complete reply within 1 s/,
    );
    // 100 tokens at ≥ 40 tokens/s: 1 s + 2.5 s.
    const budgeted = client(judge, { settings: { requestTimeoutS: 1, minDecodeTokensPerS: 40 } });
    expect(budgeted.deadlineMs(ask)).toEqual({ totalMs: 3500, idleMs: 1000 });
    expect((await budgeted.complete(ask)).text).toBe('{"answer": true}');
    const streamed = await client(judge, { settings: { requestTimeoutS: 1, minDecodeTokensPerS: 40, stream: true } }).complete(ask);
    expect(streamed).toMatchObject({ text: '{"answer": true}', reasoning: `\n${"reasoning ".repeat(30)}\n`, finishReason: "stop" });

    const stalled = await vllm({ streamChunkDelayMs: 1500, respond: () => "a long pause between every chunk" });
    await expect(
      client(stalled, { nodeName: "stalled", settings: { requestTimeoutS: 1, minDecodeTokensPerS: 1, stream: true } }).complete({ messages: [{ role: "user", content: "x" }], maxTokens: 100 }),
    ).rejects.toThrow(/node "stalled" .*the stream was silent for 1 s/);
  });

  it("validates every reply and names the node and the offending field", async () => {
    const objectArgs = await vllm({
      respond: () => '<tool_call>\n{"name": "get_item", "arguments": {"item": "x"}}\n</tool_call>',
      mangle: (body) => {
        const choice = (body.choices as { message: { tool_calls: { function: { arguments: unknown } }[] } }[])[0];
        choice.message.tool_calls[0].function.arguments = { item: "x" };
        return body;
      },
    });
    await expect(client(objectArgs, { nodeName: "sglang-1" }).complete({ messages: [{ role: "user", content: "x" }], tools })).rejects.toThrow(
      /node "sglang-1" \(model Qwen\/Qwen3-30B-A3B\): malformed chat completion: choices\.0\.message\.tool_calls\.0\.function\.arguments: must be a JSON string/,
    );
    const empty = await vllm({ respond: () => "x", mangle: (body) => ({ ...body, choices: [] }) });
    await expect(client(empty).complete({ messages: [{ role: "user", content: "x" }] })).rejects.toThrow(/malformed chat completion: choices: the reply has no choices/);
    const garbage = await vllm({ respond: () => "x", mangle: () => ({ hello: "world" }) });
    await expect(client(garbage).complete({ messages: [{ role: "user", content: "x" }] })).rejects.toThrow(/malformed chat completion: choices: Required/);
  });

  it("stops waiting when the caller cancels", async () => {
    const d = await vllm({ respond: () => "ok", rateLimit: { count: 5, retryAfterS: 30 } });
    const controller = new AbortController();
    const call = client(d).complete({ messages: [{ role: "user", content: "hi" }], signal: controller.signal });
    await sleep(200);
    controller.abort();
    await expect(call).rejects.toThrow();
    expect(d.stats.rateLimited).toBe(1);
  });
});

describe("the non-streamed transport", () => {
  /** A plain node:http server answering every POST with `answer`, counting TCP connections. */
  async function rawNode(answer: (body: string, headers: http.IncomingHttpHeaders) => { status: number; body: string; contentType?: string }) {
    let connections = 0;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const a = answer(Buffer.concat(chunks).toString("utf8"), req.headers);
        res.writeHead(a.status, { "content-type": a.contentType ?? "application/json" });
        res.end(a.body);
      });
    });
    server.on("connection", () => connections++);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    doubles.push({ close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) } as VllmDouble);
    return { url, connections: () => connections };
  }
  const completion = (content: string) => JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] });

  it("keeps connections alive: sequential calls to a node reuse one socket, concurrent ones at most maxConcurrency", async () => {
    const node = await rawNode(() => ({ status: 200, body: completion("ok") }));
    const chat = client(node, { settings: { maxConcurrency: 3 } });
    for (let i = 0; i < 5; i++) expect((await chat.complete({ messages: [{ role: "user", content: `q${i}` }] })).text).toBe("ok");
    expect(node.connections()).toBe(1);
    await Promise.all(Array.from({ length: 12 }, (_, i) => chat.complete({ messages: [{ role: "user", content: `p${i}` }] })));
    expect(node.connections()).toBeLessThanOrEqual(3);
  });

  it("sends the API key as a bearer token, and refuses a reply that is not JSON, naming the node, without retrying", async () => {
    const seen: string[] = [];
    const auth: (string | undefined)[] = [];
    const node = await rawNode((body, headers) => (seen.push(body), auth.push(headers.authorization), { status: 200, body: "<html>proxy error</html>", contentType: "text/html" }));
    const waits: number[] = [];
    await expect(client(node, { nodeName: "behind-proxy", apiKey: "sk-node", sleep: async (ms) => void waits.push(ms) }).complete({ messages: [{ role: "user", content: "x" }] })).rejects.toThrow(
      /node "behind-proxy" \(model Qwen\/Qwen3-30B-A3B\): malformed chat completion: the body is not JSON \("<html>proxy error<\/html>"\)/,
    );
    expect(waits).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(auth).toEqual(["Bearer sk-node"]);
    expect(JSON.parse(seen[0]!)).toMatchObject({ model: MODEL, messages: [{ role: "user", content: "x" }] });
  });

  it("words a 5xx from the server's own body, plain text included, and retries it", async () => {
    let n = 0;
    const node = await rawNode(() => (++n < 3 ? { status: 503, body: "upstream overloaded", contentType: "text/plain" } : { status: 200, body: completion("late") }));
    const waits: number[] = [];
    expect((await client(node, { sleep: async (ms) => void waits.push(ms) }).complete({ messages: [{ role: "user", content: "x" }] })).text).toBe("late");
    expect(waits).toHaveLength(2);
    const down = await rawNode(() => ({ status: 500, body: JSON.stringify({ detail: "CUDA out of memory" }) }));
    await expect(client(down, { nodeName: "oom", sleep: async () => {}, settings: { maxRetries: 1 } }).complete({ messages: [{ role: "user", content: "x" }] })).rejects.toThrow(
      /node "oom" .*HTTP 500 after 2 attempts: CUDA out of memory/,
    );
  });

  it("accepts exactly the completions the schema accepts (the hand-written check never lets a malformed one through)", () => {
    const ok = { choices: [{ message: { role: "assistant", content: "hi", tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] }, finish_reason: "tool_calls" }] };
    const variants: unknown[] = [
      ok,
      { choices: [{ message: { content: null, reasoning_content: "r", tool_calls: null }, finish_reason: null }], usage: { prompt_tokens: 3 } },
      { choices: [{ message: {} }] },
      null,
      [],
      "text",
      { choices: [] },
      { choices: {} },
      { choices: [null] },
      { choices: [[]] },
      { choices: [{}] },
      { choices: [{ message: [] }] },
      { choices: [{ message: { content: 3 } }] },
      { choices: [{ message: { role: 1 } }] },
      { choices: [{ message: { reasoning: {} } }] },
      { choices: [{ message: { reasoning_content: false } }] },
      { choices: [{ message: {}, finish_reason: 0 }] },
      { choices: [{ message: { tool_calls: {} } }] },
      { choices: [{ message: { tool_calls: [null] } }] },
      { choices: [{ message: { tool_calls: [{ function: { name: "", arguments: "{}" } }] } }] },
      { choices: [{ message: { tool_calls: [{ function: { name: "f", arguments: {} } }] } }] },
      { choices: [{ message: { tool_calls: [{ function: { name: "f" } }] } }] },
      { choices: [{ message: { tool_calls: [{ id: 5, function: { name: "f", arguments: "" } }] } }] },
      { choices: [{ message: { tool_calls: [{ type: "tool", function: { name: "f", arguments: "" } }] } }] },
      { choices: [{ message: { tool_calls: [{ function: [] }] } }] },
      { choices: [ok.choices[0], { message: { content: 1 } }] },
    ];
    for (const v of variants) expect(isWellFormedCompletion(v), JSON.stringify(v)).toBe(completionSchema.safeParse(v).success);
    expect(variants.filter((v) => isWellFormedCompletion(v))).toHaveLength(3);
  });
});

describe("node settings: the openai section", () => {
  it("defaults every field, and refuses extras that the run or the call sets", () => {
    expect(nodeSettingsSchema.parse({}).openai).toEqual({
      extraBody: {},
      requestTimeoutS: 120,
      minDecodeTokensPerS: 10,
      stream: false,
      maxConcurrency: 64,
      maxRetries: 5,
      maxRetryWaitS: 60,
    });
    expect(() => parseNodeSettings("judge", { openai: { extraBody: { temperature: 0 } } })).toThrow(
      /node "judge": settings\.openai\.extraBody\.temperature: "temperature" is set by the run or the call itself/,
    );
    expect(() => parseNodeSettings("judge", { openai: { streaming: true } })).toThrow(/settings\.openai: Unrecognized key/);
  });
});
