/**
 * One JSON POST over node:http(s) with a keep-alive connection pool per node: the transport of the
 * non-streamed chat calls (lib/clients/openai-chat.ts). At 256 rollouts in flight against a vLLM node
 * the worker makes thousands of calls a minute; fetch (undici's WHATWG streams, the openai package's
 * request pipeline around it) cost ~2.4 ms CPU per call, this ~0.1 ms (docs/BENCHMARKS.md, bench:rollout).
 *
 * What comes back is the status, the headers and the body as text; deciding what a status means and
 * validating the body is the caller's job.
 */
import http from "node:http";
import https from "node:https";

export interface HttpReply {
  status: number;
  headers: HeaderLookup;
  body: string;
}

/** The one thing callers read from response headers (Retry-After). */
export interface HeaderLookup {
  get(name: string): string | null;
}

/** The request never got an HTTP answer (refused, reset, DNS, TLS, cut mid-body). */
export class HttpConnectionError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "HttpConnectionError";
  }
}

function lookup(headers: http.IncomingHttpHeaders): HeaderLookup {
  return {
    get(name) {
      const v = headers[name.toLowerCase()];
      return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
    },
  };
}

/**
 * A keep-alive pool for one node: sockets are reused across calls (no TCP handshake per call) and
 * capped at the node's concurrency, so the pool never opens more than the node will serve at once.
 */
export class HttpPool {
  private readonly agent: http.Agent;
  private readonly mod: typeof http | typeof https;

  constructor(
    readonly base: URL,
    maxSockets: number,
  ) {
    const secure = base.protocol === "https:";
    this.mod = secure ? https : http;
    const opts = { keepAlive: true, keepAliveMsecs: 30_000, maxSockets, maxFreeSockets: maxSockets, scheduling: "lifo" as const };
    this.agent = secure ? new https.Agent(opts) : new http.Agent(opts);
  }

  setMaxSockets(n: number): void {
    this.agent.maxSockets = n;
    this.agent.maxFreeSockets = n;
  }

  /** POST `body` (already JSON) to `path` under the base; resolves with any status, rejects only without an answer. */
  post(path: string, body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<HttpReply> {
    const url = new URL(path, this.base.href.endsWith("/") ? this.base.href : `${this.base.href}/`);
    return new Promise<HttpReply>((resolve, reject) => {
      const req = this.mod.request(
        url,
        {
          method: "POST",
          agent: this.agent,
          signal,
          headers: { ...headers, "content-type": "application/json", accept: "application/json", "content-length": String(Buffer.byteLength(body)) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            if (!res.complete) return reject(new HttpConnectionError("the connection closed before the reply was complete"));
            resolve({ status: res.statusCode ?? 0, headers: lookup(res.headers), body: chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8") });
          });
          res.on("error", (e) => reject(signal?.aborted ? e : new HttpConnectionError(e.message, (e as NodeJS.ErrnoException).code)));
          res.on("aborted", () => reject(new HttpConnectionError("the connection closed before the reply was complete")));
        },
      );
      req.on("error", (e) => reject(signal?.aborted ? e : new HttpConnectionError(e.message, (e as NodeJS.ErrnoException).code)));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
