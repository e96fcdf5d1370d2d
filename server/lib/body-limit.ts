/**
 * Request body limits. A body larger than its route allows is refused with 413 before it is read:
 * at once from Content-Length, or as soon as a chunked body passes the limit (the rest is never read),
 * so one caller cannot make the web process hold hundreds of megabytes.
 */
import { MAX_DATASET_BYTES } from "../features/datasets/service";

/** Default for API calls: configs, report notes (≤ 50,000 characters) and filters fit with room to spare. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/**
 * A dataset file travels as one JSON string: its 20 MB of text grow with JSON escaping (quotes, newlines,
 * backslashes), so the body may be up to about twice the file.
 */
export const DATASET_IMPORT_BODY_LIMIT = 2 * MAX_DATASET_BYTES + DEFAULT_BODY_LIMIT;
/** Sign-in, sign-up and the other account endpoints carry a few short fields. */
export const AUTH_BODY_LIMIT = 64 * 1024;

const procedureLimits: Record<string, number> = {
  "datasets.import": DATASET_IMPORT_BODY_LIMIT,
};

/** The limit for a tRPC request: the largest of the procedures it names (a batch names several). */
export function trpcBodyLimit(procedurePaths: string[]): number {
  return Math.max(DEFAULT_BODY_LIMIT, ...procedurePaths.map((p) => procedureLimits[p] ?? DEFAULT_BODY_LIMIT));
}

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the request body is larger than ${formatBytes(limit)}, the limit for this request`);
    this.name = "BodyTooLargeError";
  }
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

/**
 * The body as bytes, at most `limit` of them. Throws BodyTooLargeError without reading further when the
 * declared length or the bytes received so far exceed it.
 */
export async function readBodyWithin(req: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    await req.body?.cancel().catch(() => {});
    throw new BodyTooLargeError(limit);
  }
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(limit);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    body.set(c, offset);
    offset += c.byteLength;
  }
  return body;
}

/** The same request with its (already read) body, for handlers that read it themselves. */
export function withBody(req: Request, body: Uint8Array): Request {
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(req.url, { method: req.method, headers: req.headers, body: hasBody ? (body as Uint8Array<ArrayBuffer>) : undefined, signal: req.signal });
}
