/**
 * Request body limits. A body larger than its route allows is refused with 413 before it is read:
 * at once from Content-Length, or as soon as a chunked body passes the limit (the rest is never read),
 * so one caller cannot make the web process hold hundreds of megabytes.
 */
import { bodyLimitFor, DEFAULT_BODY_LIMIT, formatBytes, tooLargeBody } from "../../lib/body-limits";
import { resolveUser } from "../trpc/context";
import { isDatabaseUnavailable } from "./db-errors";

// The limits themselves, per route, live in lib/body-limits.ts (the web server applies the same table).
export { AUTH_BODY_LIMIT, DATASET_IMPORT_BODY_LIMIT, DEFAULT_BODY_LIMIT, formatBytes, restBodyLimit, trpcBodyLimit } from "../../lib/body-limits";

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the request body is larger than ${formatBytes(limit)}, the limit for this request`);
    this.name = "BodyTooLargeError";
  }
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

/**
 * The request with its body read within its route's limit (lib/body-limits.ts), or the 413 to answer.
 * A route's larger limit (a dataset import) is given only to a member or admin behind the request, who
 * is looked up before a byte is read; anyone else gets the default.
 */
export async function readRequestWithinLimit(req: Request): Promise<Request | Response> {
  if (req.method === "GET" || req.method === "HEAD") return req;
  let route = bodyLimitFor(req.method, req.url);
  if (route.limit > DEFAULT_BODY_LIMIT) {
    // The database being away leaves the default limit; the procedure then answers 503 for itself.
    const user = await resolveUser(req.headers).catch((err: unknown) => {
      if (isDatabaseUnavailable(err)) return null;
      throw err;
    });
    if (!user || user.role === "viewer") route = bodyLimitFor(req.method, req.url, { signedIn: false });
  }
  try {
    return withBody(req, await readBodyWithin(req, route.limit));
  } catch (err) {
    if (err instanceof BodyTooLargeError) return new Response(tooLargeBody(route), { status: 413, headers: { "content-type": "application/json", connection: "close" } });
    throw err;
  }
}
