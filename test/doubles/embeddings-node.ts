/**
 * TEST DOUBLE — an OpenAI-compatible embedding server in vLLM's shape (`vllm serve <embedding model>`,
 * vllm/entrypoints/openai/protocol.py EmbeddingCompletionRequest): `POST /v1/embeddings` with
 * `{model, input: string | string[]}` answers `{object:"list", data:[{object:"embedding", index, embedding}],
 * model, usage}`. The vectors are FIXED by the test (`vectors(text)`), so retrieval orders are checkable by
 * hand; it is not a model. Enforced: a JSON body; `model` is the served one (404 NotFoundError otherwise, in
 * vLLM's `{error:{message,type,param,code}}`); `input` a non-empty string or list of strings (400); the API
 * key when one is set (401 `{"error":"Unauthorized"}`, vLLM's --api-key middleware). `failures` makes the
 * next N requests answer 503.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface EmbeddingsDouble {
  url: string;
  /** Every input list received, in order. */
  requests: string[][];
  failNext(n: number): void;
  close(): Promise<void>;
}

export async function startEmbeddingsDouble(opts: { model: string; apiKey?: string; vectors: (text: string) => number[] }): Promise<EmbeddingsDouble> {
  const requests: string[][] = [];
  let failures = 0;
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const vllmError = (res: http.ServerResponse, status: number, type: string, message: string) => send(res, status, { error: { message, type, param: null, code: status } });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/embeddings") return send(res, 404, { detail: "Not Found" });
      if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) return send(res, 401, { error: "Unauthorized" });
      if (failures > 0) {
        failures -= 1;
        return vllmError(res, 503, "ServiceUnavailableError", "the server is overloaded");
      }
      let body: { model?: unknown; input?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return vllmError(res, 400, "BadRequestError", "JSON decode error");
      }
      if (body.model !== opts.model) return vllmError(res, 404, "NotFoundError", `The model \`${String(body.model)}\` does not exist.`);
      const input = typeof body.input === "string" ? [body.input] : body.input;
      if (!Array.isArray(input) || input.length === 0 || input.some((t) => typeof t !== "string")) {
        return vllmError(res, 400, "BadRequestError", "input must be a string or a non-empty list of strings");
      }
      requests.push(input as string[]);
      const data = (input as string[]).map((t, index) => ({ object: "embedding", index, embedding: opts.vectors(t) }));
      send(res, 200, { id: "embd-double", object: "list", created: 0, model: opts.model, data, usage: { prompt_tokens: 0, total_tokens: 0 } });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (n) => void (failures = n),
    close: () => new Promise((r) => server.close(() => r())),
  };
}
