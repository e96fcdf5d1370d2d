/**
 * One JSON POST over node:http(s) with a keep-alive connection pool per node: the transport of the
 * non-streamed chat calls (lib/clients/openai-chat.ts). At 256 rollouts in flight against a vLLM node
 * the worker makes thousands of calls a minute; fetch (undici's WHATWG streams) and the openai package's
 * request pipeline around it cost ~2.4 ms CPU per generation in bench:rollout, this path ~0.43 ms, within
 * noise of a bare node:http POST on the same machine (docs/BENCHMARKS.md).
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

  /** The base URL's path with a trailing slash, e.g. `/v1/`. */
  private readonly basePath: string;

  constructor(
    readonly base: URL,
    maxSockets: number,
  ) {
    this.basePath = base.pathname.endsWith("/") ? base.pathname : `${base.pathname}/`;
    const secure = base.protocol === "https:";
    this.mod = secure ? https : http;
    const opts = { keepAlive: true, keepAliveMsecs: 30_000, maxSockets, maxFreeSockets: maxSockets, scheduling: "lifo" as const };
    this.agent = secure ? new https.Agent(opts) : new http.Agent(opts);
  }

  setMaxSockets(n: number): void {
    this.agent.maxSockets = n;
    this.agent.maxFreeSockets = n;
  }

  /**
   * POST `body` (already JSON) to `path` under the base. `reply` resolves with any status and rejects
   * only without an answer; `abort(reason)` drops the request (its socket too) and rejects `reply`
   * with `reason`. No AbortSignal: the caller's timers and signal call `abort` directly.
   */
  post(path: string, body: string, headers: Record<string, string>): { reply: Promise<HttpReply>; abort(reason: Error): void } {
    let req: http.ClientRequest | undefined;
    let abortedWith: Error | undefined;
    const connectionError = (e: Error) => abortedWith ?? new HttpConnectionError(e.message, (e as NodeJS.ErrnoException).code);
    const reply = new Promise<HttpReply>((resolve, reject) => {
      req = this.mod.request(
        {
          protocol: this.base.protocol,
          // URL keeps an IPv6 literal's brackets; http.request wants the bare address.
          hostname: this.base.hostname.startsWith("[") ? this.base.hostname.slice(1, -1) : this.base.hostname,
          port: this.base.port,
          path: this.basePath + path,
          method: "POST",
          agent: this.agent,
          headers: { ...headers, "content-type": "application/json", accept: "application/json", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            if (!res.complete) return reject(connectionError(new Error("the connection closed before the reply was complete")));
            resolve({ status: res.statusCode ?? 0, headers: lookup(res.headers), body: chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8") });
          });
          res.on("error", (e) => reject(connectionError(e)));
          res.on("aborted", () => reject(connectionError(new Error("the connection closed before the reply was complete"))));
        },
      );
      req.on("error", (e) => reject(connectionError(e)));
      req.end(body);
    });
    return {
      reply,
      abort(reason) {
        if (abortedWith) return;
        abortedWith = reason;
        req?.destroy(reason);
      },
    };
  }

  close(): void {
    this.agent.destroy();
  }
}
