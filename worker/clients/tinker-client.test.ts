import { afterAll, beforeAll, describe, expect, it } from "vitest";
import os from "node:os";
import path from "node:path";
import { promises as fs } from "node:fs";
import { startNode, type RunningNode } from "../node/server";
import { VOCAB_SIZE } from "../node/tokenizer";
import { TinkerClient, TinkerError } from "../../lib/clients/tinker-client";

let node: RunningNode;
beforeAll(async () => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "client-"));
  node = await startNode({ port: 0, host: "127.0.0.1", dataDir, baseConfig: { vocabSize: VOCAB_SIZE, contextLength: 32, nLayer: 1, nHead: 2, dModel: 8 }, longPollMs: 100 });
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

describe("TinkerClient transport", () => {
  it("retries 503 and 429 (honouring retry-after-ms) and polls through try_again", async () => {
    const { impl, calls } = flakyFetch([
      { path: "/create_session", times: 2, respond: () => new Response(JSON.stringify({ detail: "busy" }), { status: 503 }) },
      { path: "/asample", times: 1, respond: () => new Response("{}", { status: 429, headers: { "retry-after-ms": "10" } }) },
      { path: "/retrieve_future", times: 2, respond: () => new Response(JSON.stringify({ type: "try_again", request_id: "x", queue_state: "active" })) },
    ]);
    const client = new TinkerClient({ baseUrl: node.url, fetch: impl, retryBaseMs: 5 });
    await client.start();
    const res = await client.sample({ baseModel: "tiny-gpt" }, [1, 2], { max_tokens: 3, seed: 1 });
    expect(res.sequences[0].tokens).toHaveLength(3);
    expect(calls.filter((c) => c.endsWith("/create_session"))).toHaveLength(3);
    expect(calls.filter((c) => c.endsWith("/asample"))).toHaveLength(2);
    expect(calls.filter((c) => c.endsWith("/retrieve_future")).length).toBeGreaterThanOrEqual(3);
    client.close();
  });

  it("does not retry a 4xx, gives up after maxRetries, and times out", async () => {
    const client = new TinkerClient({ baseUrl: node.url, retryBaseMs: 5, maxRetries: 2 });
    await client.start();
    const err = await client.post("create_model", { session_id: client.session, base_model: "nope" }).catch((e) => e);
    expect(err).toBeInstanceOf(TinkerError);
    expect(err.status).toBe(404);
    expect(err.message).toMatch(/unknown base model 'nope'/);

    const always503 = flakyFetch([{ path: "/healthz", times: 99, respond: () => new Response("{}", { status: 503 }) }]);
    const c2 = new TinkerClient({ baseUrl: node.url, fetch: always503.impl, retryBaseMs: 1, maxRetries: 2 });
    await expect(c2.get("healthz")).rejects.toMatchObject({ status: 503, retryable: true });
    expect(always503.calls).toHaveLength(3);

    const hanging: typeof fetch = (_input, init) =>
      new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    const c3 = new TinkerClient({ baseUrl: node.url, fetch: hanging, timeoutMs: 20, maxRetries: 0 });
    await expect(c3.get("healthz")).rejects.toThrow(/timeout after 20 ms/);
    client.close();
  });
});
