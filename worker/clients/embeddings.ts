/**
 * OpenAI-compatible `POST /v1/embeddings` (vLLM serving an embedding model, e.g.
 * sentence-transformers/all-MiniLM-L6-v2, which BFCL's memory_vector uses): `{model, input: [texts]}` →
 * `data[i].embedding`, reordered by `index`. Replies are validated; 408/429/5xx and connection errors are
 * retried with exponential backoff; anything else is an error naming the node.
 */
import { nodeEndpoint } from "../../lib/node-url";
import { z } from "zod";

const replySchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()).min(1) })),
});

export interface EmbeddingClientOptions {
  /** The node's root URL (without /v1). */
  baseUrl: string;
  apiKey?: string;
  model: string;
  nodeName: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** Texts per request. */
  batchSize?: number;
  sleep?: (ms: number) => Promise<void>;
}

export class EmbeddingCallError extends Error {}

const RETRYABLE = new Set([408, 409, 429, 500, 502, 503, 504]);

export function createEmbeddingClient(opts: EmbeddingClientOptions): (texts: string[]) => Promise<number[][]> {
  const url = nodeEndpoint(opts.baseUrl, "v1", "embeddings");
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const who = `embedding node "${opts.nodeName}" (model ${opts.model})`;

  async function one(texts: string[]): Promise<number[][]> {
    let lastError = "";
    for (let attempt = 0; attempt <= (opts.maxRetries ?? 4); attempt++) {
      if (attempt > 0) await sleep(Math.min(500 * 2 ** (attempt - 1), 10_000));
      let res: Response;
      try {
        res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) },
          body: JSON.stringify({ model: opts.model, input: texts }),
          signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000),
        });
      } catch (err) {
        lastError = (err as Error).message;
        continue;
      }
      const text = await res.text();
      if (!res.ok) {
        lastError = `answered ${res.status}: ${text.slice(0, 300)}`;
        if (RETRYABLE.has(res.status)) continue;
        throw new EmbeddingCallError(`${who} ${lastError}`);
      }
      let parsed: z.infer<typeof replySchema>;
      try {
        parsed = replySchema.parse(JSON.parse(text));
      } catch (err) {
        throw new EmbeddingCallError(`${who} answered an embeddings reply out of protocol: ${(err as Error).message.slice(0, 300)}`);
      }
      const out: number[][] = new Array(texts.length);
      for (const d of parsed.data) if (d.index < texts.length) out[d.index] = d.embedding;
      if (parsed.data.length !== texts.length || out.some((v) => v === undefined)) {
        throw new EmbeddingCallError(`${who} returned ${parsed.data.length} embeddings for ${texts.length} inputs`);
      }
      const dim = out[0].length;
      if (out.some((v) => v.length !== dim)) throw new EmbeddingCallError(`${who} returned embeddings of different dimensions`);
      return out;
    }
    throw new EmbeddingCallError(`${who} failed: ${lastError}`);
  }

  return async (texts) => {
    const size = opts.batchSize ?? 64;
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += size) out.push(...(await one(texts.slice(i, i + size))));
    return out;
  };
}
