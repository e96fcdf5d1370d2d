/**
 * Transport: one HTTP call to the node's /api/v1, with the node's credentials (an API key, or the JWT it
 * exchanges for one), retries of transient failures with the same body and X-Idempotency-Key, and the reply
 * validated with zod. Errors name the node, the endpoint and the cause.
 */
import { nodeEndpoint } from "../../node-url";
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { PROTO_CONTENT_TYPE } from "../tinker-proto";
import type { ResolvedProfile } from "../tinker-profile";
import { authTokenReply, describeZodError, rootReply } from "../tinker-wire";
import { TinkerError, withCause } from "./errors";
import { TINKER_SDK_VERSION } from "./types";

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => (clearTimeout(t), reject(signal!.reason));
    const t = setTimeout(() => (signal?.removeEventListener("abort", onAbort), resolve()), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export interface Reply {
  status: number;
  headers: Headers;
  json: unknown;
  bytes: Uint8Array | null;
  text: string;
}

export interface CallOptions {
  timeoutMs?: number;
  retries?: number;
  signal?: AbortSignal;
  accept?: string;
  /** Statuses that mean "processed, maybe" must not be retried (create_model on non-idempotent servers). */
  retryUnknownOutcome?: boolean;
}

export type Body = { json: unknown } | { proto: Uint8Array };

export interface TransportOptions {
  baseUrl: string;
  nodeName: string;
  apiKey?: string;
  fetch: typeof fetch;
  log: (message: string) => void;
  timeoutMs: number;
  submitRetryMs: number;
  maxRetries: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** The server profile once known (hosted Tinker's 409 is transient, as the SDK treats it). */
  profile: () => ResolvedProfile | undefined;
}

export class Transport {
  readonly baseUrl: string;
  readonly nodeName: string;
  private readonly fetchImpl: typeof fetch;
  private readonly log: (message: string) => void;
  private readonly apiKey: string | undefined;
  private jwt: { token: string; exp: number } | null = null;

  constructor(private readonly o: TransportOptions) {
    this.baseUrl = o.baseUrl;
    this.nodeName = o.nodeName;
    this.fetchImpl = o.fetch;
    this.log = o.log;
    this.apiKey = o.apiKey;
  }

  where(method: string, path: string): string {
    return `node "${this.nodeName}": ${method} /api/v1/${path}`;
  }

  /** The JWT exchange (client/config's pjwt_auth_enabled): the key is traded for a short-lived token, refreshed near its expiry. */
  async refreshJwt(): Promise<void> {
    const r = await this.call("POST", "auth/token", { json: {} }, authTokenReply, { skipJwt: true });
    let exp = Date.now() + 10 * 60_000;
    try {
      const claims = JSON.parse(Buffer.from(r.jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as { exp?: number };
      if (typeof claims.exp === "number") exp = claims.exp * 1000;
    } catch {
      // An unparseable expiry: refresh on the default schedule.
    }
    this.jwt = { token: r.jwt, exp };
  }

  /** GET outside /api/v1 (the root probe of the profile detection); null on any failure. */
  async rawGet(path: string): Promise<z.infer<typeof rootReply> | null> {
    const res = await this.fetchImpl(path === "/" ? `${this.baseUrl}/` : nodeEndpoint(this.baseUrl, path), { headers: this.headers("GET"), signal: AbortSignal.timeout(10_000) });
    if (!res.ok) return null;
    const parsed = rootReply.safeParse(await res.json().catch(() => null));
    return parsed.success ? parsed.data : null;
  }

  /** Headers authenticating a plain request to this node (the JWT refreshed near expiry), and its fetch. */
  async rest(): Promise<{ fetch: typeof fetch; headers: Record<string, string> }> {
    if (this.jwt && this.jwt.exp - Date.now() < 60_000) await this.refreshJwt();
    return { fetch: this.fetchImpl, headers: this.headers("GET") };
  }

  headers(method: string, extra: Record<string, string> = {}, credential: "jwt" | "key" = "jwt"): Record<string, string> {
    const key = credential === "jwt" ? (this.jwt?.token ?? this.apiKey) : this.apiKey;
    return {
      "user-agent": `envace-studio (tinker-sdk-compatible ${TINKER_SDK_VERSION})`,
      ...(key ? { "x-api-key": key } : {}),
      ...(method === "POST" ? { "content-type": "application/json" } : {}),
      ...extra,
    };
  }

  /**
   * One call: retries transient failures (same body, same idempotency key), validates the reply with
   * `schema`. Errors name the node, the endpoint and the cause.
   */
  async call<T>(
    method: "GET" | "POST",
    path: string,
    body: Body | null,
    schema: z.ZodType<T, z.ZodTypeDef, unknown>,
    opts: CallOptions & { skipJwt?: boolean } = {},
  ): Promise<T> {
    const reply = await this.send(method, path, body, opts);
    const parsed = schema.safeParse(reply.json);
    if (!parsed.success) throw new TinkerError(`${this.where(method, path)}: unexpected reply (${describeZodError(parsed.error)})`, reply.status, "server", false, "bad_reply", "protocol");
    return parsed.data;
  }

  private isTransient(err: TinkerError): boolean {
    if (err.kind === "transport") return true;
    const s = err.status ?? 0;
    if (s === 408 || s === 425 || s === 429 || s >= 500) return true;
    return s === 409 && this.o.profile() === "tinker";
  }


  async send(method: "GET" | "POST" | "DELETE", path: string, body: Body | null, opts: CallOptions & { skipJwt?: boolean }): Promise<Reply> {
    const retries = opts.retries ?? this.o.maxRetries;
    const idempotencyKey = randomUUID();
    const started = Date.now();
    let lostReply = false;
    for (let attempt = 0; ; attempt++) {
      if (!opts.skipJwt && this.jwt && this.jwt.exp - Date.now() < 60_000) await this.refreshJwt();
      try {
        return await this.once(method, path, body, opts.timeoutMs ?? this.o.timeoutMs, idempotencyKey, opts);
      } catch (e) {
        if (!(e instanceof TinkerError)) throw e;
        e.afterLostReply = lostReply;
        if (e.status === 402 && Date.now() - started < 3600_000 && !opts.signal?.aborted) {
          this.log(`${this.where(method, path)}: billing problem (402); pausing`);
          await sleep(5000, opts.signal);
          continue;
        }
        const transient = this.isTransient(e);
        const unknownOutcome = e.kind === "transport" || (e.status ?? 0) >= 500;
        if (!transient || attempt >= retries || opts.signal?.aborted || Date.now() - started > this.o.submitRetryMs) throw e;
        if (unknownOutcome && opts.retryUnknownOutcome === false) throw e;
        if (unknownOutcome) lostReply = true;
        await sleep(e.retryAfterMs ?? Math.min(this.o.retryBaseMs * 2 ** attempt, this.o.retryMaxMs), opts.signal);
      }
    }
  }

  private async once(method: string, path: string, body: Body | null, timeoutMs: number, idempotencyKey: string, opts: CallOptions & { skipJwt?: boolean }): Promise<Reply> {
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(new Error(`timeout after ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => ctrl.abort(opts.signal?.reason);
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    const extra: Record<string, string> = {};
    if (method === "POST") extra["x-idempotency-key"] = idempotencyKey;
    if (body && "proto" in body) extra["content-type"] = PROTO_CONTENT_TYPE;
    if (opts.accept) extra.accept = opts.accept;
    let res: Response;
    let buf: ArrayBuffer;
    try {
      res = await this.fetchImpl(nodeEndpoint(this.baseUrl, "api/v1", path), {
        method,
        headers: this.headers(method, extra, opts.skipJwt ? "key" : "jwt"),
        body: method === "POST" ? (body && "proto" in body ? (body.proto as Uint8Array<ArrayBuffer>) : JSON.stringify(body?.json ?? {})) : undefined,
        signal: ctrl.signal,
      });
      buf = await res.arrayBuffer();
    } catch (e) {
      const timedOut = ctrl.signal.aborted && !opts.signal?.aborted;
      const reason = timedOut ? `timeout after ${timeoutMs} ms` : withCause(e as Error);
      throw new TinkerError(`${this.where(method, path)}: ${reason}`, null, "transport", !opts.signal?.aborted, timedOut ? "timeout" : "network", "transport");
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
    }
    const bytes = new Uint8Array(buf);
    const isProto = (res.headers.get("content-type") ?? "").includes(PROTO_CONTENT_TYPE);
    const text = isProto ? "" : new TextDecoder().decode(bytes);
    let json: unknown = null;
    if (!isProto && text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    } else if (!isProto) json = {};
    if (res.ok) {
      if (json === undefined) throw new TinkerError(`${this.where(method, path)}: reply is not JSON: ${text.slice(0, 200)}`, res.status, "server", false, "bad_reply", "protocol");
      return { status: res.status, headers: res.headers, json, bytes: isProto ? bytes : null, text };
    }
    const detailOf = (j: unknown) => (j && typeof j === "object" ? ((j as { detail?: unknown }).detail ?? (j as { error?: unknown }).error) : undefined);
    const detail = detailOf(json) ?? (text ? text.slice(0, 300) : undefined);
    const message = `${this.where(method, path)}: HTTP ${res.status}${detail !== undefined ? ` ${typeof detail === "string" ? detail : JSON.stringify(detail)}` : ""}`;
    const raHeader = res.headers.get("retry-after-ms") ?? (res.headers.get("retry-after") ? String(Number(res.headers.get("retry-after")) * 1000) : null);
    const retryAfterMs = raHeader && Number.isFinite(Number(raHeader)) ? Math.min(Number(raHeader), this.o.retryMaxMs) : undefined;
    const code = json && typeof json === "object" ? ((json as { code?: unknown }).code as string | undefined) : undefined;
    const err = new TinkerError(message, res.status, res.status >= 500 ? "server" : "user", false, typeof code === "string" ? code : undefined, "http", retryAfterMs);
    (err as TinkerError & { body?: unknown; bare?: boolean }).body = json;
    (err as TinkerError & { bare?: boolean }).bare = json === undefined || (json !== null && typeof json === "object" && detailOf(json) === undefined);
    throw err;
  }
}
