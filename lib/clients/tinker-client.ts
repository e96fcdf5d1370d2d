/**
 * A client for Tinker-compatible training servers — hosted Tinker, SkyRL tx and the embedded node —
 * speaking the wire protocol of the Python SDK 0.25 (../shared/docs/tinker-protocol.md; behaviour read
 * from the SDK's training_client.py, sampling_client.py, api_future_impl.py, internal_client_holder.py
 * and SkyRL's skyrl/tinker/api.py). What it guarantees, and why:
 *
 * - Bootstrap: client/config (flags with the SDK's defaults), a JWT exchange when the server asks for
 *   one, create_session, a heartbeat at once and every 10 s (SkyRL only reaps sessions that heartbeated).
 * - Every reply is validated with zod; an unexpected shape raises an error naming the node, the
 *   endpoint and the field.
 * - Submissions (POSTs that return a future) retry transient failures (network, timeouts, 408, 425,
 *   429, 5xx; 409 on hosted Tinker, as the SDK does) with the same body and X-Idempotency-Key. A
 *   rejected POST (other 4xx) does not consume a seq_id.
 * - Training ops of one model get contiguous seq_ids (the first is 1) assigned when they are posted,
 *   and are posted strictly one after another; results are awaited in parallel (pipelining).
 * - forward_backward is cut into chunks within the advertised limits (fwdbwd_max_chunk_len datums,
 *   fwdbwd_max_chunk_bytes_count estimated proto bytes), one seq_id per chunk; outputs are
 *   concatenated and metrics merged by their reduction suffix (`:sum`, `:mean`, …). Bodies are
 *   protobuf (SDK 0.25) unless the node asks for JSON.
 * - Futures are long-polled: a poll that times out on the client, try_again and 408 are not failures;
 *   a future only fails on a failed result (hosted 200 {error, category}, SkyRL 400 {detail}), on a
 *   fatal status, or when the node's overall deadline passes.
 * - Non-idempotent servers are handled: save names that collide after a lost reply are re-issued
 *   under a fresh name; create_model after a lost reply on servers that would create a second adapter
 *   moves to a fresh session (the orphan is reaped with the abandoned one) instead of leaking it.
 */
import { randomUUID } from "node:crypto";
import { nodeBaseUrl, nodeEndpoint } from "../node-url";
import type { z } from "zod";
import type { TinkerServerProfile } from "../../contracts/node-settings";
import { type DetectedProfile, type ProfileEvidence, type ResolvedProfile, detectServerProfile, needsRootProbe } from "./tinker-profile";
import { ForwardBackwardWriter, PROTO_CONTENT_TYPE, decodeForwardBackwardOutput, decodeSampleResponse, estimateDatumBytes } from "./tinker-proto";
import {
  type ClientConfig,
  type ForwardBackwardOutput,
  type SampleResponse,
  type ServerCapabilities,
  authTokenReply,
  capabilitiesReply,
  clientConfigReply,
  createModelResult,
  createSamplingSessionReply,
  createSessionReply,
  describeZodError,
  failedFutureReply,
  forwardBackwardResult,
  getInfoReply,
  heartbeatReply,
  loadWeightsResult,
  optimStepResult,
  rootReply,
  sampleResult,
  saveWeightsForSamplerResult,
  samplerInfoReply,
  saveWeightsResult,
  tryAgainReply,
  unloadModelResult,
  untypedFutureReply,
} from "./tinker-wire";

export type { ClientConfig, ForwardBackwardOutput, SampleResponse, ServerCapabilities };

/** The SDK release whose wire protocol this client speaks (sent as sdk_version; servers gate features on it). */
export const TINKER_SDK_VERSION = "0.25.0";

/** A resolved server profile ("auto" is resolved in start(), by lib/clients/tinker-profile.ts). */
export type { ResolvedProfile };
export type WireFormat = "protobuf" | "json";

export interface TinkerClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Node name for error messages. */
  nodeName?: string;
  /** Which server this is; "auto" infers it (embedded node: capabilities; SkyRL tx: GET /; else hosted Tinker). */
  profile?: TinkerServerProfile;
  /** forward_backward body encoding; default protobuf (SDK 0.25), json for servers of the JSON era. */
  wire?: WireFormat;
  /** Per HTTP request timeout (ms) for everything but retrieve_future. */
  timeoutMs?: number;
  /** Per retrieve_future call (ms). Default: just past the server's long poll (SkyRL holds 300 s), else 45 s as the SDK. */
  pollTimeoutMs?: number;
  /** Overall deadline of one operation, submission to result (ms). */
  futureDeadlineMs?: number;
  /** How long one POST is retried on transient failures (ms); the SDK gives up after 5 minutes. */
  submitRetryMs?: number;
  /** Most retries of one POST on transient failures. */
  maxRetries?: number;
  heartbeatMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  fetch?: typeof fetch;
  /** Where warnings go (lost heartbeats, server messages, recoveries); default console.warn. */
  log?: (message: string) => void;
}

export type FailureCategory = "user" | "server" | "unknown" | "transport";
export type TinkerErrorKind = "http" | "transport" | "failed" | "protocol" | "input" | "deadline";

export class TinkerError extends Error {
  /** True when an earlier attempt of the same POST may have reached the server (lost reply). */
  afterLostReply = false;
  constructor(
    message: string,
    readonly status: number | null,
    readonly category: FailureCategory,
    readonly retryable: boolean,
    readonly code?: string,
    readonly kind: TinkerErrorKind = "http",
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "TinkerError";
  }
}

/**
 * Datum values: plain arrays, or typed arrays (what the policy builds: Int32Array token ids,
 * Float32Array values — the wire's own types, so serialising them is a copy, and a paper-scale step
 * takes a third of the memory).
 */
export type NumberArray = number[] | Float32Array | Int32Array | Float64Array;
export interface TensorData {
  data: NumberArray;
  dtype: "int64" | "float32";
  shape?: number[];
}
export interface Datum {
  model_input: { chunks: Array<{ type: "encoded_text"; tokens: number[] | Int32Array }> };
  loss_fn_inputs: Record<string, TensorData>;
}
export type LossFn = "cross_entropy" | "importance_sampling" | "ppo" | "cispo" | "dro";
export interface AdamParams {
  learning_rate: number;
  beta1: number;
  beta2: number;
  eps: number;
  weight_decay: number;
  grad_clip_norm: number;
}
export interface SamplingParams {
  max_tokens: number;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  seed?: number;
  stop?: number[] | string[];
}

/** Optional asample extras. */
export interface SampleExtras {
  /** Ask for each prompt token's log-probability (hosted Tinker; SkyRL tx since July 2026; the embedded node). */
  promptLogprobs?: boolean;
}

export const tokensInput = <T extends number[] | Int32Array>(tokens: T) => ({ chunks: [{ type: "encoded_text" as const, tokens }] });

/** JSON-wire form of a datum: typed arrays become plain arrays (JSON.stringify would write objects). */
const plainArray = (a: NumberArray): number[] => (Array.isArray(a) ? a : Array.from(a));
function datumAsJson(d: Datum): unknown {
  return {
    model_input: { chunks: d.model_input.chunks.map((c) => ({ type: "encoded_text", tokens: plainArray(c.tokens) })) },
    loss_fn_inputs: Object.fromEntries(Object.entries(d.loss_fn_inputs).map(([k, t]) => [k, { ...t, data: plainArray(t.data) }])),
  };
}

/** "fetch failed (connect ECONNREFUSED 127.0.0.1:9)": fetch hides the socket error in its cause. */
function withCause(e: Error): string {
  let inner: unknown = e;
  for (let depth = 0; depth < 5 && inner instanceof Error && inner.cause instanceof Error; depth++) inner = inner.cause;
  return inner !== e && inner instanceof Error ? `${e.message} (${inner.message})` : e.message;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => (clearTimeout(t), reject(signal!.reason));
    const t = setTimeout(() => (signal?.removeEventListener("abort", onAbort), resolve()), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** Loss functions that read the sampler's logprobs and the advantages. */
const POLICY_LOSSES = new Set<LossFn>(["importance_sampling", "ppo", "cispo", "dro"]);

interface Reply {
  status: number;
  headers: Headers;
  json: unknown;
  bytes: Uint8Array | null;
  text: string;
}

interface CallOptions {
  timeoutMs?: number;
  retries?: number;
  signal?: AbortSignal;
  accept?: string;
  /** Statuses that mean "processed, maybe" must not be retried (create_model on non-idempotent servers). */
  retryUnknownOutcome?: boolean;
}

type Body = { json: unknown } | { proto: Uint8Array };

/** How results of one future are read. */
interface ResultKind<T> {
  schema: z.ZodType<T, z.ZodTypeDef, unknown>;
  /** Results that may come back as protobuf when asked for (SDK 0.25 asks for them). */
  proto?: (bytes: Uint8Array) => unknown;
}

const RESULT = {
  createModel: { schema: createModelResult },
  forwardBackward: { schema: forwardBackwardResult, proto: decodeForwardBackwardOutput },
  optimStep: { schema: optimStepResult },
  saveForSampler: { schema: saveWeightsForSamplerResult },
  saveWeights: { schema: saveWeightsResult },
  loadWeights: { schema: loadWeightsResult },
  unload: { schema: unloadModelResult },
  sample: { schema: sampleResult, proto: decodeSampleResponse },
} satisfies Record<string, ResultKind<unknown>>;

export class TinkerClient {
  readonly baseUrl: string;
  readonly nodeName: string;
  private readonly o: Required<Omit<TinkerClientOptions, "apiKey" | "fetch" | "nodeName" | "profile" | "wire" | "pollTimeoutMs" | "log">> & {
    pollTimeoutMs?: number;
  };
  private readonly fetchImpl: typeof fetch;
  private readonly log: (message: string) => void;
  private readonly requestedProfile: TinkerServerProfile;
  private readonly requestedWire: WireFormat | undefined;
  private readonly apiKey: string | undefined;
  private jwt: { token: string; exp: number } | null = null;
  private sessionId: string | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private modelSeq = 0;
  private samplingSeq = 0;
  private detected: DetectedProfile | null = null;
  private evidence: ProfileEvidence | null = null;
  private caps: ServerCapabilities | null = null;
  /** Sessions given up after a create_model whose outcome is unknown (their orphans are reaped by the server). */
  readonly abandonedSessions: string[] = [];
  config: ClientConfig = clientConfigReply.parse({});
  lastHeartbeatOk = 0;

  constructor(opts: TinkerClientOptions) {
    // The normal form (lib/node-url.ts); requests join their paths onto it (`endpoint`).
    this.baseUrl = nodeBaseUrl(opts.baseUrl, opts.nodeName);
    this.nodeName = opts.nodeName ?? this.baseUrl;
    this.fetchImpl = opts.fetch ?? fetch;
    this.log = opts.log ?? ((m) => console.warn(`[tinker] ${m}`));
    this.requestedProfile = opts.profile ?? "auto";
    this.requestedWire = opts.wire;
    this.apiKey = opts.apiKey;
    this.o = {
      timeoutMs: 60_000,
      futureDeadlineMs: 2 * 3600_000,
      submitRetryMs: 5 * 60_000,
      maxRetries: 12,
      heartbeatMs: 10_000,
      retryBaseMs: 500,
      retryMaxMs: 30_000,
      ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)),
    } as TinkerClient["o"];
  }

  get session(): string {
    if (!this.sessionId) throw new Error("TinkerClient.start() has not been called");
    return this.sessionId;
  }

  /** The server profile (resolved by start() when "auto"): the one answer transport, loss semantics and the doctor use. */
  get profile(): ResolvedProfile {
    if (!this.detected) throw new Error("TinkerClient.start() has not been called");
    return this.detected.profile;
  }

  /** The profile with what it rests on, and the sentence to show when it is a guess (SkyRL's backend). */
  get detectedProfile(): DetectedProfile {
    if (!this.detected) throw new Error("TinkerClient.start() has not been called");
    return this.detected;
  }

  /** What the profile was detected from (for the doctor's conflict check against the node's setting). */
  get profileEvidence(): ProfileEvidence {
    if (!this.evidence) throw new Error("TinkerClient.start() has not been called");
    return this.evidence;
  }

  get futureDeadlineMs(): number {
    return this.o.futureDeadlineMs;
  }

  warn(message: string): void {
    this.log(message);
  }

  get wire(): WireFormat {
    return this.requestedWire ?? "protobuf";
  }

  /** Per retrieve_future call: a little past the server's long poll, so the server answers first. */
  get pollTimeoutMs(): number {
    if (this.o.pollTimeoutMs !== undefined) return this.o.pollTimeoutMs;
    const p = this.detected?.profile;
    return p === "skyrl-jax" || p === "skyrl-train" ? 330_000 : 45_000;
  }

  private where(method: string, path: string): string {
    return `node "${this.nodeName}": ${method} /api/v1/${path}`;
  }

  /** client/config, JWT exchange when asked, profile resolution, create_session, then heartbeats. */
  async start(tags: string[] = []): Promise<void> {
    if (this.sessionId) return;
    this.config = await this.call("POST", "client/config", { json: { sdk_version: TINKER_SDK_VERSION } }, clientConfigReply);
    if (this.config.pjwt_auth_enabled) await this.refreshJwt();
    this.caps = await this.call("GET", "get_server_capabilities", null, capabilitiesReply);
    this.evidence = await this.gatherEvidence();
    this.detected = detectServerProfile(this.requestedProfile, this.evidence);
    if (this.detected.profile === "tinker" && this.apiKey && !/^(tml-|eyJ)/.test(this.apiKey))
      throw new TinkerError(`node "${this.nodeName}": hosted Tinker API keys start with "tml-" (or are a JWT); check the node's API key`, null, "user", false, "bad_api_key", "input");
    await this.openSession(tags);
  }

  private async openSession(tags: string[]): Promise<void> {
    const s = await this.call("POST", "create_session", { json: { type: "create_session", tags, user_metadata: {}, sdk_version: TINKER_SDK_VERSION } }, createSessionReply);
    if (s.error_message) throw new TinkerError(`${this.where("POST", "create_session")}: ${s.error_message}`, null, "server", false, undefined, "failed");
    if (s.warning_message) this.log(`node "${this.nodeName}": ${s.warning_message}`);
    if (s.info_message) this.log(`node "${this.nodeName}": ${s.info_message}`);
    this.sessionId = s.session_id;
    this.modelSeq = 0;
    this.samplingSeq = 0;
    this.lastHeartbeatOk = Date.now();
    if (this.heartbeat) clearInterval(this.heartbeat);
    // One heartbeat now: SkyRL never reaps a session that has not heartbeated, and an abandoned
    // session must be reapable (see createModel).
    await this.sendHeartbeat();
    this.heartbeat = setInterval(() => void this.sendHeartbeat(), this.o.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Evidence for the profile (lib/clients/tinker-profile.ts); GET / only when the rest does not decide. */
  private async gatherEvidence(): Promise<ProfileEvidence> {
    const base = { embedded: this.caps?.node?.kind === "embedded", hostname: new URL(this.baseUrl).hostname };
    if (!needsRootProbe(base)) return { ...base, rootName: null };
    const root = await this.rawGet("/").catch(() => null);
    return { ...base, rootName: root?.name ?? null };
  }

  private async rawGet(path: string): Promise<z.infer<typeof rootReply> | null> {
    const res = await this.fetchImpl(path === "/" ? `${this.baseUrl}/` : nodeEndpoint(this.baseUrl, path), { headers: this.headers("GET"), signal: AbortSignal.timeout(10_000) });
    if (!res.ok) return null;
    const parsed = rootReply.safeParse(await res.json().catch(() => null));
    return parsed.success ? parsed.data : null;
  }

  private async refreshJwt(): Promise<void> {
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

  private async sendHeartbeat(): Promise<void> {
    if (!this.sessionId) return;
    try {
      await this.call("POST", "session_heartbeat", { json: { type: "session_heartbeat", session_id: this.sessionId } }, heartbeatReply, { retries: 0, timeoutMs: 10_000 });
      this.lastHeartbeatOk = Date.now();
    } catch (e) {
      if (Date.now() - this.lastHeartbeatOk > 120_000) this.log(`node "${this.nodeName}": no successful heartbeat for 2 minutes (the server may end the session): ${(e as Error).message}`);
    }
  }

  close(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  // ---------------------------------------------------------------- HTTP

  private headers(method: string, extra: Record<string, string> = {}, credential: "jwt" | "key" = "jwt"): Record<string, string> {
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
    return s === 409 && this.detected?.profile === "tinker";
  }

  /** POST/GET with retries; returns the raw successful reply. */
  private async send(method: "GET" | "POST" | "DELETE", path: string, body: Body | null, opts: CallOptions & { skipJwt?: boolean }): Promise<Reply> {
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

  // ---------------------------------------------------------------- futures

  /** POSTs a future-returning request; returns its request_id. */
  async submit(path: string, body: Body, opts: CallOptions = {}): Promise<{ requestId: string; modelId?: string | null }> {
    const r = await this.call("POST", path, body, untypedFutureReply, opts);
    return { requestId: r.request_id, modelId: r.model_id };
  }

  /**
   * Long-polls retrieve_future until the result is ready (tinker-protocol.md §1.8). Client-side poll
   * timeouts, try_again and 408 are polled again without counting; network errors and 5xx back off;
   * only a failed result, a fatal status or the overall deadline end the wait with an error.
   */
  async waitFuture<T>(requestId: string, kind: ResultKind<T>, opts: { signal?: AbortSignal; deadline?: number; what?: string } = {}): Promise<T> {
    const deadline = opts.deadline ?? Date.now() + this.o.futureDeadlineMs;
    const what = opts.what ?? "request";
    let bare400s = 0;
    let backoff = 0;
    let quick = 0;
    for (;;) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (Date.now() > deadline)
        throw new TinkerError(
          `node "${this.nodeName}": ${what} ${requestId} not done within ${Math.round(this.o.futureDeadlineMs / 1000)} s (node setting tinker.futureDeadlineS)`,
          null,
          "transport",
          false,
          "deadline",
          "deadline",
        );
      const polledAt = Date.now();
      let reply: Reply;
      try {
        reply = await this.send(
          "POST",
          "retrieve_future",
          { json: { request_id: requestId, allow_metadata_only: false } },
          { retries: 0, timeoutMs: Math.max(1, Math.min(this.pollTimeoutMs, deadline - Date.now())), signal: opts.signal, accept: kind.proto ? `${PROTO_CONTENT_TYPE}, application/json` : undefined },
        );
      } catch (e) {
        const err = e as TinkerError;
        if (!(err instanceof TinkerError)) throw e;
        if (err.code === "timeout" || err.status === 408) {
          backoff = 0;
          continue; // the long poll ended on either side: poll again at once
        }
        if (err.status === 400 && !(err as TinkerError & { bare?: boolean }).bare) {
          // SkyRL's failed future: HTTP 400 {detail}.
          throw new TinkerError(`node "${this.nodeName}": ${what} failed: ${String((err as TinkerError & { body?: { detail?: unknown } }).body?.detail)}`, 400, "user", false, "request_failed", "failed");
        }
        if (err.status === 400 && bare400s++ < 3) continue; // a bare 400 may come from a proxy
        if (err.status === 410) throw new TinkerError(`node "${this.nodeName}": ${what} ${requestId} is gone (410); resubmit the request`, 410, "server", true, "future_gone", "http");
        if (err.kind === "transport" || err.status === 429 || (err.status ?? 0) >= 500) {
          await sleep(err.retryAfterMs ?? Math.min(this.o.retryBaseMs * 2 ** backoff++, this.o.retryMaxMs), opts.signal);
          continue;
        }
        throw err;
      }
      backoff = 0;
      if (reply.bytes) {
        if (!kind.proto) throw new TinkerError(`node "${this.nodeName}": ${what} ${requestId}: protobuf reply for a JSON-only result`, reply.status, "server", false, "bad_reply", "protocol");
        let decoded: unknown;
        try {
          decoded = kind.proto(reply.bytes);
        } catch (e) {
          throw new TinkerError(`node "${this.nodeName}": ${what} ${requestId}: undecodable protobuf result (${(e as Error).message})`, reply.status, "server", false, "bad_reply", "protocol");
        }
        return this.parseResult(decoded, kind, requestId, what);
      }
      const r = reply.json as Record<string, unknown> | null;
      if (r && typeof r === "object" && r.type === "try_again") {
        const t = tryAgainReply.safeParse(r);
        if (t.success && t.data.queue_state && t.data.queue_state !== "active") this.log(`node "${this.nodeName}": ${what} queued (${t.data.queue_state}${t.data.queue_state_reason ? `: ${t.data.queue_state_reason}` : ""})`);
        // A server that does not long-poll answers at once: do not spin.
        if (Date.now() - polledAt < 200) await sleep(Math.min(50 * 2 ** quick++, 1000), opts.signal);
        else quick = 0;
        continue;
      }
      if (r && typeof r === "object" && "error" in r) {
        const f = failedFutureReply.safeParse(r);
        if (f.success) {
          const category = (["user", "server", "unknown"].includes(f.data.category ?? "") ? f.data.category : "unknown") as FailureCategory;
          throw new TinkerError(`node "${this.nodeName}": ${what} failed (${category}): ${f.data.error}`, null, category, false, "request_failed", "failed");
        }
      }
      return this.parseResult(r, kind, requestId, what);
    }
  }

  private parseResult<T>(value: unknown, kind: ResultKind<T>, requestId: string, what: string): T {
    const parsed = kind.schema.safeParse(value);
    if (!parsed.success)
      throw new TinkerError(`node "${this.nodeName}": ${what} ${requestId}: unexpected result (${describeZodError(parsed.error)})`, 200, "server", false, "bad_reply", "protocol");
    return parsed.data;
  }

  // ---------------------------------------------------------------- high-level calls

  async capabilities(): Promise<ServerCapabilities> {
    if (!this.caps) this.caps = await this.call("GET", "get_server_capabilities", null, capabilitiesReply);
    return this.caps;
  }

  /**
   * create_model. Hosted Tinker derives the model id from (session, model_seq_id), so a retry after a
   * lost reply is idempotent (and checked with get_info first). SkyRL tx and the embedded node create
   * a second model on every retry; there the client moves to a fresh session instead, so the orphan
   * (if any) is reaped with the abandoned session, and nothing leaks.
   */
  async createModel(baseModel: string, opts: { loraRank?: number; seed?: number } = {}): Promise<TinkerModel> {
    const idempotent = this.profile === "tinker";
    for (let recovery = 0; ; recovery++) {
      const modelSeqId = this.modelSeq++;
      const body = {
        type: "create_model",
        session_id: this.session,
        model_seq_id: modelSeqId,
        base_model: baseModel,
        user_metadata: {},
        lora_config: { rank: opts.loraRank ?? 32, ...(opts.seed !== undefined ? { seed: opts.seed } : {}), train_unembed: true, train_mlp: true, train_attn: true },
      };
      let submitted: { requestId: string; modelId?: string | null };
      try {
        submitted = await this.submit("create_model", { json: body }, { retryUnknownOutcome: idempotent });
      } catch (e) {
        const err = e as TinkerError;
        const unknownOutcome = err instanceof TinkerError && (err.kind === "transport" || (err.status ?? 0) >= 500);
        if (!unknownOutcome || recovery >= 2) throw e;
        if (idempotent) {
          const existing = await this.call("POST", "get_info", { json: { type: "get_info", model_id: `${this.session}:train:${modelSeqId}` } }, getInfoReply).catch(() => null);
          if (existing) return new TinkerModel(this, existing.model_id, baseModel);
          this.modelSeq = modelSeqId; // not created: reuse its model_seq_id
          continue;
        }
        const old = this.session;
        this.abandonedSessions.push(old);
        this.log(`node "${this.nodeName}": create_model outcome unknown (${err.message}); moving to a fresh session so a half-created model is reaped with session ${old}`);
        this.close();
        this.sessionId = null;
        await this.openSession(["envace", "recovered"]);
        continue;
      }
      const out = await this.waitFuture(submitted.requestId, RESULT.createModel, { what: "create_model" });
      return new TinkerModel(this, out.model_id, baseModel);
    }
  }

  /** A sampling session on a base model or a tinker:// sampler path. */
  async createSamplingSession(ref: { baseModel: string } | { modelPath: string }): Promise<SamplingSession> {
    const r = await this.call(
      "POST",
      "create_sampling_session",
      {
        json: {
          type: "create_sampling_session",
          session_id: this.session,
          sampling_session_seq_id: this.samplingSeq++,
          ...("baseModel" in ref ? { base_model: ref.baseModel } : { model_path: ref.modelPath }),
        },
      },
      createSamplingSessionReply,
    );
    return new SamplingSession(this, r.sampling_session_id);
  }

  /** What the node says a sampling session samples (GET samplers/{id}): its base model or a checkpoint's sampler path. */
  async samplerInfo(id: string): Promise<{ baseModel: string | null; modelPath: string | null }> {
    const r = await this.call("GET", `samplers/${encodeURIComponent(id)}`, null, samplerInfoReply);
    return { baseModel: r.base_model ?? null, modelPath: r.model_path ?? null };
  }

  /** Headers authenticating a plain request to this node (the JWT refreshed near expiry), and its fetch, for REST reads outside the client (tinker-archive.ts). */
  async rest(): Promise<{ fetch: typeof fetch; headers: Record<string, string> }> {
    if (this.jwt && this.jwt.exp - Date.now() < 60_000) await this.refreshJwt();
    return { fetch: this.fetchImpl, headers: this.headers("GET") };
  }

  /** The next per-session sampling counter (create_sampling_session and ephemeral sampler saves share it). */
  nextSamplingSeqId(): number {
    return this.samplingSeq++;
  }

  /** Validated sampling parameters as sent (max_tokens required, stop always a list of one kind). */
  samplingParams(p: SamplingParams): Record<string, unknown> {
    if (!Number.isInteger(p.max_tokens) || p.max_tokens < 1) throw new TinkerError(`sampling: max_tokens must be a positive integer (got ${p.max_tokens})`, null, "user", false, "bad_params", "input");
    const stop = p.stop ?? [];
    if (stop.length > 0 && !stop.every((s) => typeof s === typeof stop[0])) throw new TinkerError("sampling: stop must be all token ids or all strings", null, "user", false, "bad_params", "input");
    return { max_tokens: p.max_tokens, temperature: p.temperature ?? 1, top_p: p.top_p ?? 1, top_k: p.top_k ?? -1, ...(p.seed !== undefined ? { seed: p.seed } : {}), stop };
  }

  private samplesInFlight = 0;
  private sampleWaiters: Array<() => void> = [];

  /** At most client/config's sample_max_concurrent_requests samples in flight (the SDK's limit). */
  private async sampleSlot(): Promise<() => void> {
    while (this.samplesInFlight >= this.config.sample_max_concurrent_requests) await new Promise<void>((r) => this.sampleWaiters.push(r));
    this.samplesInFlight++;
    return () => {
      this.samplesInFlight--;
      this.sampleWaiters.shift()?.();
    };
  }

  /** Internal: asample under a sampling session and wait for it. */
  async sampleIn(session: SamplingSession, prompt: number[], params: SamplingParams, numSamples: number, signal?: AbortSignal, extra: SampleExtras = {}): Promise<SampleResponse> {
    const release = await this.sampleSlot();
    try {
      return await this.sampleOnce(session, prompt, params, numSamples, signal, extra);
    } finally {
      release();
    }
  }

  private async sampleOnce(session: SamplingSession, prompt: number[], params: SamplingParams, numSamples: number, signal?: AbortSignal, extra: SampleExtras = {}): Promise<SampleResponse> {
    const sampling_params = this.samplingParams(params);
    if (prompt.length === 0) throw new TinkerError("sampling: the prompt is empty", null, "user", false, "bad_params", "input");
    const deadline = Date.now() + this.o.futureDeadlineMs;
    for (let resubmit = 0; ; resubmit++) {
      const seqId = session.takeSeq();
      const { requestId } = await this.submit(
        "asample",
        {
          json: {
            type: "sample",
            sampling_session_id: session.id,
            seq_id: seqId,
            prompt: tokensInput(prompt),
            num_samples: numSamples,
            sampling_params,
            prompt_logprobs: extra.promptLogprobs ?? false,
            topk_prompt_logprobs: 0,
          },
        },
        { signal },
      );
      try {
        return await this.waitFuture(requestId, RESULT.sample, { signal, deadline, what: "asample" });
      } catch (e) {
        if ((e as TinkerError).code === "future_gone" && resubmit < 3) continue;
        throw e;
      }
    }
  }

  /** asample against a base model or a sampler path, through a one-off sampling session (use SamplingSession.sample to reuse one). */
  async sample(target: { baseModel: string } | { modelPath: string }, prompt: number[], params: SamplingParams, numSamples = 1, signal?: AbortSignal): Promise<SampleResponse> {
    const session = await this.createSamplingSession(target);
    return session.sample(prompt, params, numSamples, signal);
  }

  /** Deletes a checkpoint (training state or sampler weights) by its tinker:// path. */
  async deleteCheckpoint(path: string): Promise<void> {
    const m = /^tinker:\/\/([^/]+)\/(weights|sampler_weights)\/([^/]+)$/.exec(path);
    if (!m) throw new TinkerError(`cannot delete '${path}': not a tinker://<model>/<weights|sampler_weights>/<name> path`, null, "user", false, "bad_params", "input");
    await this.send("DELETE", `training_runs/${encodeURIComponent(m[1])}/checkpoints/${m[2]}/${encodeURIComponent(m[3])}`, null, { retries: 3 });
  }
}

/** A sampling session: its own seq_id counter from 0 (asample requires one on SkyRL tx and the embedded node). */
export class SamplingSession {
  private seq = 0;
  constructor(
    readonly client: TinkerClient,
    readonly id: string,
  ) {}

  takeSeq(): number {
    return this.seq++;
  }

  sample(prompt: number[], params: SamplingParams, numSamples = 1, signal?: AbortSignal, extra: SampleExtras = {}): Promise<SampleResponse> {
    return this.client.sampleIn(this, prompt, params, numSamples, signal, extra);
  }
}

/** Metrics of several forward_backward chunks → one set, by each key's reduction suffix (as the SDK does). */
export function mergeChunkMetrics(chunks: Array<{ metrics: Record<string, number>; datums: number }>): Record<string, number> {
  if (chunks.length === 1) return { ...chunks[0].metrics };
  const out: Record<string, number> = {};
  const keys = new Set(chunks.flatMap((c) => Object.keys(c.metrics)));
  for (const key of keys) {
    const having = chunks.filter((c) => key in c.metrics);
    const values = having.map((c) => c.metrics[key]);
    const reduction = key.includes(":") ? key.slice(key.lastIndexOf(":") + 1) : "last";
    switch (reduction) {
      case "sum":
        out[key] = values.reduce((a, b) => a + b, 0);
        break;
      case "mean": {
        const w = having.reduce((n, c) => n + c.datums, 0);
        out[key] = w > 0 ? having.reduce((s, c) => s + c.metrics[key] * c.datums, 0) / w : values[0];
        break;
      }
      case "min":
        out[key] = Math.min(...values);
        break;
      case "max":
        out[key] = Math.max(...values);
        break;
      default:
        // "last" (SkyRL's policy_lr:last) and reductions without a defined merge: the last chunk's value.
        out[key] = values[values.length - 1];
    }
  }
  return out;
}

/** Checks a datum before it is sent: SkyRL answers 500 on a missing target_tokens and silently trains zeros on missing logprobs/advantages. */
export function validateDatum(d: Datum, i: number, lossFn: LossFn): void {
  let n = 0;
  for (const c of d.model_input.chunks) n += c.tokens.length;
  if (n === 0) throw new TinkerError(`datum ${i}: model_input is empty`, null, "user", false, "bad_datum", "input");
  if (!d.loss_fn_inputs.target_tokens) throw new TinkerError(`datum ${i}: loss_fn_inputs.target_tokens is required for loss_fn '${lossFn}'`, null, "user", false, "bad_datum", "input");
  if (POLICY_LOSSES.has(lossFn))
    for (const name of ["logprobs", "advantages"])
      if (!d.loss_fn_inputs[name]) throw new TinkerError(`datum ${i}: loss_fn_inputs.${name} is required for loss_fn '${lossFn}'`, null, "user", false, "bad_datum", "input");
  for (const name in d.loss_fn_inputs) {
    const data = d.loss_fn_inputs[name].data;
    if (data.length !== n) throw new TinkerError(`datum ${i}: loss_fn_inputs.${name} has ${data.length} values for ${n} input tokens`, null, "user", false, "bad_datum", "input");
    if (data instanceof Int32Array) continue; // always finite integers
    const bad = firstNonFinite(data);
    if (bad >= 0) throw new TinkerError(`datum ${i}: loss_fn_inputs.${name}[${bad}] is not a finite number`, null, "user", false, "bad_datum", "input");
  }
}

/** Index of the first NaN / ±Infinity, or -1 (x − x is 0 exactly for finite x). */
function firstNonFinite(a: ArrayLike<number>): number {
  for (let k = 0; k < a.length; k++) if (a[k] - a[k] !== 0) return k;
  return -1;
}

/**
 * Protobuf framing per datum beyond its payload bytes (field tags, lengths, map keys): the SDK's
 * estimate leaves it out; counting it keeps every body within the byte limit itself.
 */
const FRAMING_BYTES_PER_DATUM = 192;

const datumBytes = (d: Datum) =>
  FRAMING_BYTES_PER_DATUM +
  estimateDatumBytes({
    tokens: d.model_input.chunks.reduce((k, c) => k + c.tokens.length, 0),
    tensors: Object.values(d.loss_fn_inputs).map((t) => ({ length: t.data.length, dtype: t.dtype })),
  });

/** Splits datums into chunks within the server's limits (datum count and estimated proto bytes, framing included). */
export function chunkDatums(data: Datum[], config: Pick<ClientConfig, "fwdbwd_max_chunk_len" | "fwdbwd_max_chunk_bytes_count">): Datum[][] {
  const chunks: Datum[][] = [];
  let current: Datum[] = [];
  let bytes = 0;
  for (const d of data) {
    const b = datumBytes(d);
    if (current.length > 0 && (current.length >= config.fwdbwd_max_chunk_len || bytes + b > config.fwdbwd_max_chunk_bytes_count)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(d);
    bytes += b;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

/** A training model: every op gets the next seq_id when it is posted, and ops are posted in call order. */
export class TinkerModel {
  private nextSeq = 1;
  private chain: Promise<unknown> = Promise.resolve();
  private broken: string | null = null;
  /** Request bodies posted (bytes), for benchmarks and diagnostics. */
  readonly sentBodies: number[] = [];
  private saveAttempt = 0;

  constructor(
    readonly client: TinkerClient,
    readonly modelId: string,
    readonly baseModel: string,
  ) {}

  /** seq_id the next op will carry. */
  get pendingSeqId(): number {
    return this.nextSeq;
  }

  /**
   * Runs `post` on the model's submission chain with the next seq_id. The seq_id is consumed only
   * when the server accepted the request; `post` may ask for more seq_ids (chunks) through `take`.
   */
  private enqueue<T>(post: (take: () => number, commit: () => void) => Promise<T>): Promise<T> {
    const run = this.chain.then(async () => {
      if (this.broken) throw new TinkerError(this.broken, null, "transport", false, "model_broken", "transport");
      let taken = 0;
      const take = () => this.nextSeq + taken++;
      const commit = () => {
        this.nextSeq += taken;
        taken = 0;
      };
      try {
        return await post(take, commit);
      } catch (e) {
        const err = e as TinkerError;
        if (err instanceof TinkerError && (err.kind === "transport" || (err.status ?? 0) >= 500))
          this.broken = `model ${this.modelId} on node "${this.client.nodeName}": a request's outcome is unknown after retries (${err.message}); resume the run`;
        throw e;
      }
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Posts one future-returning op with the next seq_id and waits for its result. */
  private async op<T>(path: string, body: (seqId: number) => Record<string, unknown>, kind: ResultKind<T>): Promise<T> {
    const deadline = Date.now() + this.client.futureDeadlineMs;
    const { requestId } = await this.enqueue(async (take, commit) => {
      const seqId = take();
      const r = await this.client.submit(path, { json: { ...body(seqId), model_id: this.modelId, seq_id: seqId } });
      commit();
      return r;
    });
    return this.client.waitFuture(requestId, kind, { deadline, what: `${path} (model ${this.modelId})` });
  }

  /**
   * forward_backward in chunks within the server's limits (one seq_id each, posted in order), outputs
   * concatenated, metrics merged. Every datum is checked first (see validateDatum).
   */
  forwardBackward(data: Datum[], lossFn: LossFn, lossFnConfig?: Record<string, number> | null, opts: { forwardOnly?: boolean } = {}): Promise<ForwardBackwardOutput> {
    if (data.length === 0) return Promise.reject(new TinkerError("forward_backward: no datums", null, "user", false, "bad_datum", "input"));
    // A datum that fails the check rejects the call before its turn posts anything.
    const deadline = Date.now() + this.client.futureDeadlineMs;
    const forwardOnly = opts.forwardOnly ?? false;
    // Every datum is checked before anything is posted (nothing half-sent), in slices so a big step
    // does not hold the event loop.
    const checked = (async () => {
      for (let i = 0; i < data.length; i++) {
        validateDatum(data[i], i, lossFn);
        if (i % 16 === 15) await yieldToLoop();
      }
      return chunkDatums(data, this.client.config);
    })();
    // Take the model's turn now (call order = seq_id order), post once the check passed.
    const submitted = this.enqueue(async (take, commit) => {
      const chunks = await checked;
      const ids: string[] = [];
      for (const chunk of chunks) {
        const seqId = take();
        const body = await this.encodeChunk(chunk, seqId, lossFn, lossFnConfig ?? null, forwardOnly);
        this.sentBodies.push("proto" in body ? body.proto.byteLength : Buffer.byteLength(JSON.stringify(body.json)));
        const r = await this.client.submit("forward_backward", body);
        commit();
        ids.push(r.requestId);
      }
      return { ids, sizes: chunks.map((c) => c.length) };
    });
    return submitted.then(async ({ ids, sizes }) => {
      const outs = await Promise.all(ids.map((id) => this.client.waitFuture(id, RESULT.forwardBackward, { deadline, what: `forward_backward (model ${this.modelId})` })));
      return {
        loss_fn_output_type: outs[0]?.loss_fn_output_type ?? "",
        loss_fn_outputs: outs.flatMap((o) => o.loss_fn_outputs),
        metrics: mergeChunkMetrics(outs.map((o, i) => ({ metrics: o.metrics, datums: sizes[i] }))),
      };
    });
  }

  /** One chunk's body; protobuf is serialised a few datums at a time, pausing for the event loop between. */
  private async encodeChunk(chunk: Datum[], seqId: number, lossFn: LossFn, lossFnConfig: Record<string, number> | null, forwardOnly: boolean): Promise<Body> {
    if (this.client.wire === "protobuf") {
      const writer = new ForwardBackwardWriter({ model_id: this.modelId, seq_id: seqId, loss_fn: lossFn, loss_fn_config: lossFnConfig, forward_only: forwardOnly });
      const asProto = (d: Datum) => ({ tokens: d.model_input.chunks.length === 1 ? d.model_input.chunks[0].tokens : d.model_input.chunks.flatMap((c) => Array.from(c.tokens)), loss_fn_inputs: d.loss_fn_inputs });
      let group: Datum[] = [];
      let positions = 0;
      for (const d of chunk) {
        group.push(d);
        positions += d.loss_fn_inputs.target_tokens.data.length;
        if (positions >= 50_000) {
          writer.add(group.map(asProto));
          group = [];
          positions = 0;
          await yieldToLoop();
        }
      }
      writer.add(group.map(asProto));
      return { proto: writer.finish() };
    }
    if (forwardOnly) throw new TinkerError("forward-only passes need the protobuf wire format (JSON servers: use /forward)", null, "user", false, "bad_params", "input");
    return { json: { type: "forward_backward", model_id: this.modelId, seq_id: seqId, forward_backward_input: { data: chunk.map(datumAsJson), loss_fn: lossFn, loss_fn_config: lossFnConfig } } };
  }

  /** Forward pass only (no gradient): forward_backward with forward_only on the protobuf wire, /forward on JSON. */
  forward(data: Datum[], lossFn: LossFn, lossFnConfig?: Record<string, number> | null): Promise<ForwardBackwardOutput> {
    if (this.client.wire === "protobuf") return this.forwardBackward(data, lossFn, lossFnConfig, { forwardOnly: true });
    data.forEach((d, i) => validateDatum(d, i, lossFn));
    return this.op("forward", () => ({ type: "forward", forward_input: { data: data.map(datumAsJson), loss_fn: lossFn, loss_fn_config: lossFnConfig ?? null } }), RESULT.forwardBackward);
  }

  optimStep(adam: AdamParams): Promise<{ metrics?: Record<string, number> | null }> {
    return this.op("optim_step", () => ({ type: "optim_step", adam_params: adam }), RESULT.optimStep);
  }

  /**
   * A save whose name (or ephemeral checkpoint id) collides: on SkyRL tx a save retried after a lost
   * reply gets 409 (the first attempt created the checkpoint row). Re-issue under a fresh name with the
   * same seq_id (servers that check the name before taking the seq_id), then with the next seq_id
   * (SkyRL, where the lost attempt consumed it).
   */
  private async save<T>(path: string, body: (seqId: number, attempt: number) => Record<string, unknown>, kind: ResultKind<T>): Promise<T> {
    const deadline = Date.now() + this.client.futureDeadlineMs;
    const { requestId } = await this.enqueue(async (take, commit) => {
      let seqId = take();
      for (let attempt = 0; ; attempt++) {
        try {
          const r = await this.client.submit(path, { json: { ...body(seqId, attempt), model_id: this.modelId, seq_id: seqId } });
          commit();
          return r;
        } catch (e) {
          const err = e as TinkerError;
          if (!(err instanceof TinkerError) || err.status !== 409 || attempt >= 2) throw e;
          this.client.warn(`node "${this.client.nodeName}": ${path} name taken (${err.message}); re-issuing under a fresh name`);
          if (attempt === 1) seqId = take();
        }
      }
    });
    return this.client.waitFuture(requestId, kind, { deadline, what: `${path} (model ${this.modelId})` });
  }

  /** Ephemeral publication for sampling (what RL loops use): returns a sampling session on the new weights. */
  async saveWeightsForSamplerEphemeral(): Promise<SamplingSession> {
    const r = await this.save("save_weights_for_sampler", () => ({ type: "save_weights_for_sampler", sampling_session_seq_id: this.client.nextSamplingSeqId() }), RESULT.saveForSampler);
    if (!r.sampling_session_id) throw new TinkerError(`node "${this.client.nodeName}": save_weights_for_sampler returned no sampling_session_id`, 200, "server", false, "bad_reply", "protocol");
    return new SamplingSession(this.client, r.sampling_session_id);
  }

  /** Persistent publication under `name`; returns the tinker:// sampler path. */
  async saveWeightsForSampler(name: string): Promise<{ path: string }> {
    const r = await this.save("save_weights_for_sampler", (_, attempt) => ({ type: "save_weights_for_sampler", path: this.attemptName(name, attempt) }), RESULT.saveForSampler);
    if (!r.path) throw new TinkerError(`node "${this.client.nodeName}": save_weights_for_sampler returned no path`, 200, "server", false, "bad_reply", "protocol");
    return { path: r.path };
  }

  /** Training state (weights + optimizer) under `name`. */
  saveWeights(name: string): Promise<{ path: string }> {
    return this.save("save_weights", (_, attempt) => ({ type: "save_weights", path: this.attemptName(name, attempt) }), RESULT.saveWeights);
  }

  private attemptName(name: string, attempt: number): string {
    if (attempt === 0) return name;
    this.saveAttempt++;
    return `${name.slice(0, 240)}-r${this.saveAttempt}`;
  }

  /** load_weights: allowed only as a model's first request (hosted Tinker, SkyRL tx, the embedded node). */
  loadWeights(path: string, optimizer = true): Promise<{ path?: string | null }> {
    if (this.nextSeq !== 1) return Promise.reject(new TinkerError(`load_weights must be the first request of model ${this.modelId}; create a new model to load ${path}`, null, "user", false, "bad_params", "input"));
    return this.op("load_weights", () => ({ type: "load_weights", path, optimizer }), RESULT.loadWeights);
  }

  getInfo(): Promise<z.infer<typeof getInfoReply>> {
    return this.client.call("POST", "get_info", { json: { type: "get_info", model_id: this.modelId } }, getInfoReply);
  }

  async unload(): Promise<void> {
    const r = await this.client.submit("unload_model", { json: { type: "unload_model", model_id: this.modelId } });
    await this.client.waitFuture(r.requestId, RESULT.unload, { what: `unload_model (model ${this.modelId})` });
  }
}
