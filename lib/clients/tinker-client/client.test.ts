/** TinkerClient against a scripted hosted-Tinker-shaped server (auth, idempotent create_model), and its pure helpers. */
import { describe, expect, it } from "vitest";
import { TinkerClient, chunkDatums, mergeChunkMetrics, type Datum } from ".";

type Handler = (path: string, body: Record<string, unknown>, headers: Headers) => Response | Promise<Response>;
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** A fetch that routes /api/v1/<path> to `handle` and records every call. */
function scripted(handle: Handler) {
  const calls: Array<{ path: string; body: Record<string, unknown>; key: string | null }> = [];
  const impl: typeof fetch = async (input, init) => {
    const path = new URL(String(input)).pathname.replace(/^.*\/api\/v1\//, "");
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === "string" && init.body ? (JSON.parse(init.body) as Record<string, unknown>) : {};
    calls.push({ path, body, key: headers.get("x-api-key") });
    return handle(path, body, headers);
  };
  return { impl, calls };
}

/** The part of a hosted server every test needs. */
function hosted(extra: (path: string, body: Record<string, unknown>) => Response | Promise<Response> | null, config: Record<string, unknown> = {}): Handler {
  return (path, body) =>
    extra(path, body) ??
    (path === "client/config"
      ? json(config)
      : path === "get_server_capabilities"
        ? json({ supported_models: [{ model_name: "Qwen/Qwen3-8B", max_context_length: 32768 }] })
        : path === "create_session"
          ? json({ session_id: "sess1", warning_message: "SDK version is old" })
          : path === "session_heartbeat"
            ? json({ type: "session_heartbeat" })
            : json({ detail: `no route ${path}` }, 404));
}

const base = { baseUrl: "https://tinker.thinkingmachines.dev/services/tinker-prod", nodeName: "hosted", retryBaseMs: 1 };

describe("TinkerClient on hosted Tinker", () => {
  it("exchanges the API key for a JWT when the server asks, and sends it as X-API-Key", async () => {
    const claims = Buffer.from(JSON.stringify({ exp: Math.floor(Date.now() / 1000) + 3600 })).toString("base64url");
    const jwt = `eyJhbGciOiJub25lIn0.${claims}.sig`;
    const server = scripted(hosted((p) => (p === "auth/token" ? json({ jwt }) : null), { pjwt_auth_enabled: true }));
    const warnings: string[] = [];
    const c = new TinkerClient({ ...base, apiKey: "tml-secret", fetch: server.impl, log: (m) => warnings.push(m) });
    await c.start();
    c.close();
    expect(c.profile).toBe("tinker");
    expect(server.calls.find((x) => x.path === "auth/token")?.key).toBe("tml-secret");
    expect(server.calls.find((x) => x.path === "create_session")?.key).toBe(jwt);
    expect(warnings.join()).toMatch(/SDK version is old/);
    const bad = new TinkerClient({ ...base, apiKey: "sk-wrong", fetch: scripted(hosted(() => null)).impl, log: () => {} });
    await expect(bad.start()).rejects.toThrow(/hosted Tinker API keys start with "tml-"/);
  });

  it("create_model after a lost reply: checks the deterministic model id before creating again", async () => {
    let creates = 0;
    const server = scripted(
      hosted((p, body) => {
        if (p === "create_model") {
          creates++;
          throw new TypeError("fetch failed: socket hang up"); // the request reached the server; the reply did not
        }
        if (p === "get_info") return json({ model_id: body.model_id, model_data: { model_name: "Qwen/Qwen3-8B" } });
        return null;
      }),
    );
    const c = new TinkerClient({ ...base, apiKey: "tml-x", fetch: server.impl, maxRetries: 1, log: () => {} });
    await c.start();
    const model = await c.createModel("Qwen/Qwen3-8B");
    c.close();
    expect(model.modelId).toBe("sess1:train:0");
    expect(creates).toBe(2); // the POST and its one retry (same model_seq_id), then get_info found the model
    expect(server.calls.filter((x) => x.path === "create_model").map((x) => x.body.model_seq_id)).toEqual([0, 0]);
  });
});

describe("TinkerClient helpers", () => {
  it("merges chunk metrics by their reduction suffix", () => {
    const merged = mergeChunkMetrics([
      { metrics: { "loss:sum": 1, "ratio:mean": 1, "lr:last": 1, "x:max": 2, "y:min": 3 }, datums: 3 },
      { metrics: { "loss:sum": 2, "ratio:mean": 2, "lr:last": 5, "x:max": 1, "y:min": 4 }, datums: 1 },
    ]);
    expect(merged).toEqual({ "loss:sum": 3, "ratio:mean": 1.25, "lr:last": 5, "x:max": 2, "y:min": 3 });
  });

  it("chunks by datum count and by estimated bytes, never splitting a datum", () => {
    const datum = (n: number): Datum => ({
      model_input: { chunks: [{ type: "encoded_text", tokens: new Array(n).fill(1) }] },
      loss_fn_inputs: { target_tokens: { data: new Array(n).fill(1), dtype: "int64" } },
    });
    expect(chunkDatums([1, 2, 3, 4, 5].map(() => datum(2)), { fwdbwd_max_chunk_len: 2, fwdbwd_max_chunk_bytes_count: 1e9 }).map((c) => c.length)).toEqual([2, 2, 1]);
    // 12 bytes per position + framing: 1000-position datums are ~12 KB each.
    const sizes = chunkDatums([datum(1000), datum(1000), datum(1000), datum(5000)], { fwdbwd_max_chunk_len: 1024, fwdbwd_max_chunk_bytes_count: 25_000 }).map((c) => c.length);
    expect(sizes).toEqual([2, 1, 1]);
  });
});

describe("TinkerClient sampling concurrency", () => {
  it("keeps at most client/config's sample_max_concurrent_requests samples in flight", async () => {
    let inFlight = 0;
    let peak = 0;
    let n = 0;
    const server = scripted(
      hosted((p) => {
        if (p === "create_sampling_session") return json({ sampling_session_id: "s1" });
        if (p === "asample") {
          inFlight++;
          peak = Math.max(peak, inFlight);
          return json({ request_id: `r${n++}` });
        }
        if (p === "retrieve_future") {
          return new Promise<Response>((r) =>
            setTimeout(() => {
              inFlight--;
              r(json({ sequences: [{ stop_reason: "stop", tokens: [1], logprobs: [-1] }] }));
            }, 20),
          );
        }
        return null;
      }, { sample_max_concurrent_requests: 2 }),
    );
    const c = new TinkerClient({ ...base, apiKey: "tml-x", fetch: server.impl, log: () => {} });
    await c.start();
    const s = await c.createSamplingSession({ baseModel: "Qwen/Qwen3-8B" });
    await Promise.all(Array.from({ length: 6 }, () => s.sample([1], { max_tokens: 1 })));
    c.close();
    expect(peak).toBe(2);
  });
});
