/**
 * The front of the web process (scripts/web.ts; test/api-server.ts mounts the same front): every
 * request passes here on node:http before any route sees it, so no route can forget a body limit.
 *
 * - A declared Content-Length over the route's limit (lib/body-limits.ts) is answered 413 at once, before a
 *   byte of the body is read; what the client still sends is dropped for a moment, then the connection
 *   is cut (see `refuse`).
 * - A body without a declared length (chunked) is counted as it arrives and held, up to the limit: past
 *   it the request is answered 413 the same way, nothing more held; within it the route
 *   gets the request with the whole body and its length declared. A route therefore never sees a body
 *   over its limit, nor a truncated one.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { bodyLimitFor, carriesCredentials, tooLargeBody, type RouteLimit } from "../../lib/body-limits";

/** How long what a refused client still sends is read and dropped before its connection is cut. */
const LINGER_MS = 2_000;

/**
 * Answer 413 naming the limit. The client is usually still sending when the answer goes out: closing the
 * connection at once would make the client's kernel reset it, often before the client read the answer.
 * So the connection is half-closed after the answer, and what still arrives is read and dropped (never
 * held) until the client closes or LINGER_MS passed ("lingering close", as nginx does).
 */
function refuse(req: IncomingMessage, res: ServerResponse, route: RouteLimit): void {
  const socket = req.socket;
  if (res.headersSent) {
    socket.destroy();
    return;
  }
  const cut = setTimeout(() => socket.destroy(), LINGER_MS);
  cut.unref();
  socket.once("close", () => clearTimeout(cut));
  // node:http ends a connection whose answer says "close" with destroySoon(), which resets a client still
  // sending; end it with a FIN instead and let the timer above (or the client) close it.
  (socket as { destroySoon?: () => void }).destroySoon = () => void socket.end();
  const body = tooLargeBody(route);
  res.writeHead(413, { "content-type": "application/json", "content-length": Buffer.byteLength(body), connection: "close" });
  res.end(body);
  // Drop the rest as it comes (node:http does this itself only for a body nobody started reading).
  req.removeAllListeners("data");
  req.resume();
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] !== undefined && req.headers["content-length"] !== "0");
}

/**
 * The same request with `body` as its whole, declared body: a fresh IncomingMessage on the same socket,
 * so the route reads it like any other.
 */
function withHeldBody(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new http.IncomingMessage(req.socket);
  copy.method = req.method;
  copy.url = req.url;
  copy.httpVersion = req.httpVersion;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  const headers = { ...req.headers, "content-length": String(body.length) };
  delete headers["transfer-encoding"];
  copy.headers = headers;
  copy.rawHeaders = Object.entries(headers).flatMap(([k, v]) => (Array.isArray(v) ? v.flatMap((x) => [k, x]) : v === undefined ? [] : [k, v]));
  copy.trailers = req.trailers;
  copy.complete = true;
  if (body.length) copy.push(body);
  copy.push(null);
  return copy;
}

/**
 * Hold a body without a declared length, at most `limit` bytes: resolves with it, or with null once it
 * passed the limit (then nothing more is read) or the client went away.
 */
function holdBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (value: Buffer | null) => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        chunks.length = 0;
        return settle(null);
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => settle(Buffer.concat(chunks, size)));
    req.once("error", () => settle(null));
    req.once("aborted", () => settle(null));
  });
}

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/**
 * `handler` behind the body limits. Requests whose declared length fits go through untouched (Node's
 * parser never delivers more than Content-Length); the others are refused or held as above.
 */
export function withBodyLimits(handler: NodeHandler): NodeHandler {
  return async (req, res) => {
    if (!hasBody(req)) return handler(req, res);
    const signedIn = carriesCredentials({ authorization: req.headers.authorization, cookie: req.headers.cookie });
    const route = bodyLimitFor(req.method ?? "GET", req.url ?? "/", { signedIn });
    const declared = req.headers["content-length"];
    if (req.headers["transfer-encoding"] === undefined && declared !== undefined) {
      const length = Number(declared);
      if (!Number.isFinite(length) || length > route.limit) return refuse(req, res, route);
      return handler(req, res);
    }
    const body = await holdBody(req, route.limit);
    if (body === null) {
      if (!req.socket.destroyed) refuse(req, res, route);
      return;
    }
    return handler(withHeldBody(req, body), res);
  };
}

/**
 * The same limits for a client that asks first (`Expect: 100-continue`, as curl does for bodies over 1 MB):
 * a declared body over the limit is refused before the client sends it; otherwise it is told to go on.
 * Install with `server.on("checkContinue", …)`; node:http would otherwise say "continue" to everyone.
 */
export function checkContinue(handler: NodeHandler): (req: IncomingMessage, res: ServerResponse) => void {
  const limited = withBodyLimits(handler);
  return (req, res) => {
    const declared = Number(req.headers["content-length"]);
    const signedIn = carriesCredentials({ authorization: req.headers.authorization, cookie: req.headers.cookie });
    const route = bodyLimitFor(req.method ?? "GET", req.url ?? "/", { signedIn });
    if (req.headers["transfer-encoding"] === undefined && Number.isFinite(declared) && declared > route.limit) {
      const body = tooLargeBody(route);
      res.writeHead(413, { "content-type": "application/json", "content-length": Buffer.byteLength(body), connection: "close" });
      res.end(body);
      return;
    }
    res.writeContinue();
    void limited(req, res);
  };
}
