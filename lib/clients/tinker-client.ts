/**
 * A Tinker-compatible client over fetch (JSON wire format, tinker-protocol.md §1–2):
 * session bootstrap + 10 s heartbeat, create_model, strictly ordered seq_ids per model (POSTs
 * are sent one after another, results awaited in parallel: pipelining), future polling with
 * backoff, retries on 408/409-free transient errors (408, 429, 5xx, network) honouring
 * Retry-After, per-request timeouts, and both failed-future shapes (hosted 200 {error, category},
 * SkyRL 400 {detail}).
 */
import { randomUUID } from "node:crypto";

export interface TinkerClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Per HTTP request timeout (ms). */
  timeoutMs?: number;
  /** Total time to wait for one future (ms). */
  futureTimeoutMs?: number;
  heartbeatMs?: number;
  /** Retries of one POST on transient failures. */
  maxRetries?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  sdkVersion?: string;
  fetch?: typeof fetch;
}

export type FailureCategory = "user" | "server" | "unknown" | "transport";

export class TinkerError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly category: FailureCategory,
    readonly retryable: boolean,
    readonly code?: string,
  ) {
    super(message);
    this.name = "TinkerError";
  }
}

export interface TensorData {
  data: number[];
  dtype: "int64" | "float32";
  shape?: number[];
}
export interface Datum {
  model_input: { chunks: Array<{ type: "encoded_text"; tokens: number[] }> };
  loss_fn_inputs: Record<string, TensorData>;
}
export interface ForwardBackwardOutput {
  loss_fn_output_type: string;
  loss_fn_outputs: Array<Record<string, TensorData>>;
  metrics: Record<string, number>;
}
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
export interface SampleResponse {
  sequences: Array<{ stop_reason: "stop" | "length"; tokens: number[]; logprobs?: number[] | null }>;
}
export interface ServerCapabilities {
  supported_models: Array<{ model_name: string; max_context_length?: number | null }>;
  /** Present on the EnvACE embedded node only. */
  node?: { kind: string; version: string; extensions: string[] };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

export const tokensInput = (tokens: number[]) => ({ chunks: [{ type: "encoded_text" as const, tokens }] });

export class TinkerClient {
  readonly baseUrl: string;
  private readonly o: Required<Omit<TinkerClientOptions, "apiKey" | "fetch">> & Pick<TinkerClientOptions, "apiKey">;
  private readonly fetchImpl: typeof fetch;
  private sessionId: string | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private modelSeq = 0;
  private samplingSeq = 0;
  lastHeartbeatOk = 0;

  constructor(opts: TinkerClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.fetchImpl = opts.fetch ?? fetch;
    this.o = {
      timeoutMs: 60_000,
      futureTimeoutMs: 30 * 60_000,
      heartbeatMs: 10_000,
      maxRetries: 6,
      retryBaseMs: 500,
      retryMaxMs: 30_000,
      sdkVersion: "envace-ts-0.1.0",
      ...opts,
    };
  }

  get session(): string {
    if (!this.sessionId) throw new Error("TinkerClient.start() has not been called");
    return this.sessionId;
  }

  /** client/config, create_session, then a heartbeat every heartbeatMs (timer does not keep the process alive). */
  async start(tags: string[] = []): Promise<void> {
    if (this.sessionId) return;
    await this.post("client/config", { sdk_version: this.o.sdkVersion });
    const s = await this.post<{ session_id: string; warning_message?: string; error_message?: string }>("create_session", {
      type: "create_session",
      tags,
      user_metadata: null,
      sdk_version: this.o.sdkVersion,
    });
    if (s.error_message) throw new TinkerError(`create_session: ${s.error_message}`, null, "server", false);
    if (s.warning_message) console.warn(`[tinker] ${s.warning_message}`);
    this.sessionId = s.session_id;
    this.lastHeartbeatOk = Date.now();
    this.heartbeat = setInterval(() => void this.sendHeartbeat(), this.o.heartbeatMs);
    this.heartbeat.unref();
  }

  private async sendHeartbeat(): Promise<void> {
    if (!this.sessionId) return;
    try {
      await this.request("POST", "session_heartbeat", { type: "session_heartbeat", session_id: this.sessionId }, { retries: 0, timeoutMs: 10_000 });
      this.lastHeartbeatOk = Date.now();
    } catch (e) {
      if (Date.now() - this.lastHeartbeatOk > 120_000) console.warn(`[tinker] no successful heartbeat for 2 minutes: ${(e as Error).message}`);
    }
  }

  close(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  // ---------------------------------------------------------------- HTTP

  post<T = Record<string, unknown>>(path: string, body: unknown, opts: { retries?: number; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<T> {
    return this.request<T>("POST", path, body, opts);
  }

  get<T = Record<string, unknown>>(path: string): Promise<T> {
    return this.request<T>("GET", path, undefined, {});
  }

  /** One call with retries on transient failures (same body and idempotency key on every attempt). */
  async request<T>(method: "GET" | "POST", path: string, body: unknown, opts: { retries?: number; timeoutMs?: number; signal?: AbortSignal }): Promise<T> {
    const retries = opts.retries ?? this.o.maxRetries;
    const idempotencyKey = randomUUID();
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once<T>(method, path, body, opts.timeoutMs ?? this.o.timeoutMs, idempotencyKey, opts.signal);
      } catch (e) {
        const err = e as TinkerError;
        if (!(err instanceof TinkerError) || !err.retryable || attempt >= retries || opts.signal?.aborted) throw e;
        const wait = (err as TinkerError & { retryAfterMs?: number }).retryAfterMs ?? Math.min(this.o.retryBaseMs * 2 ** attempt, this.o.retryMaxMs);
        await sleep(wait, opts.signal);
      }
    }
  }

  private async once<T>(method: string, path: string, body: unknown, timeoutMs: number, idempotencyKey: string, signal?: AbortSignal): Promise<T> {
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(new Error(`timeout after ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => ctrl.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.baseUrl}/api/v1/${path}`, {
        method,
        headers: {
          "content-type": "application/json",
          ...(this.o.apiKey ? { "x-api-key": this.o.apiKey } : {}),
          ...(method === "POST" ? { "x-idempotency-key": idempotencyKey } : {}),
        },
        body: method === "POST" ? JSON.stringify(body ?? {}) : undefined,
        signal: ctrl.signal,
      });
    } catch (e) {
      const reason = ctrl.signal.aborted && !signal?.aborted ? `timeout after ${timeoutMs} ms` : (e as Error).message;
      throw new TinkerError(`${method} ${path}: ${reason}`, null, "transport", !signal?.aborted);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = { detail: text.slice(0, 500) };
    }
    if (res.ok) return json as T;
    const detail = typeof json === "object" && json ? ((json as { detail?: unknown; error?: unknown }).detail ?? (json as { error?: unknown }).error) : undefined;
    const message = `${method} ${path}: HTTP ${res.status}${detail ? ` ${typeof detail === "string" ? detail : JSON.stringify(detail)}` : ""}`;
    const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
    const err = new TinkerError(message, res.status, res.status >= 500 ? "server" : "user", retryable, (json as { code?: string })?.code) as TinkerError & {
      retryAfterMs?: number;
    };
    const ra = res.headers.get("retry-after-ms") ?? (res.headers.get("retry-after") ? String(Number(res.headers.get("retry-after")) * 1000) : null);
    if (ra && Number.isFinite(Number(ra))) err.retryAfterMs = Math.min(Number(ra), this.o.retryMaxMs);
    throw err;
  }

  /** Polls retrieve_future until the result is ready (see tinker-protocol.md §1.8). */
  async waitFuture<T>(requestId: string, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<T> {
    const deadline = Date.now() + (opts.timeoutMs ?? this.o.futureTimeoutMs);
    let bare400s = 0;
    let idle = 0;
    for (;;) {
      if (Date.now() > deadline) throw new TinkerError(`future ${requestId} not ready after ${opts.timeoutMs ?? this.o.futureTimeoutMs} ms`, null, "transport", false);
      let r: Record<string, unknown>;
      try {
        r = await this.post("retrieve_future", { request_id: requestId, allow_metadata_only: false }, { retries: 8, timeoutMs: 45_000, signal: opts.signal });
      } catch (e) {
        const err = e as TinkerError;
        if (err.status === 408) continue; // long poll timed out: poll again
        if (err.status === 410) throw new TinkerError(`future ${requestId} is gone (410); resubmit the request`, 410, "server", true);
        if (err.status === 400 && bare400s++ < 3) continue; // SkyRL: a bare 400 may be spurious
        throw e;
      }
      if (r.type === "try_again") {
        // The server long-polls; back off a little in case it does not.
        await sleep(Math.min(50 * 2 ** idle++, 1000), opts.signal);
        continue;
      }
      if (typeof r.error === "string" && ("category" in r || Object.keys(r).length <= 2)) {
        const category = (r.category as FailureCategory) ?? "unknown";
        throw new TinkerError(r.error, null, category, false);
      }
      return r as T;
    }
  }

  // ---------------------------------------------------------------- high-level calls

  capabilities(): Promise<ServerCapabilities> {
    return this.get<ServerCapabilities>("get_server_capabilities");
  }

  async createModel(baseModel: string, opts: { loraRank?: number; seed?: number } = {}): Promise<TinkerModel> {
    const res = await this.post<{ request_id: string; model_id?: string }>("create_model", {
      type: "create_model",
      session_id: this.session,
      model_seq_id: this.modelSeq++,
      base_model: baseModel,
      user_metadata: null,
      lora_config: { rank: opts.loraRank ?? 32, seed: opts.seed, train_unembed: true, train_mlp: true, train_attn: true },
    });
    const out = await this.waitFuture<{ model_id: string }>(res.request_id);
    return new TinkerModel(this, out.model_id ?? res.model_id!, baseModel);
  }

  async createSamplingSession(ref: { baseModel: string } | { modelPath: string }): Promise<string> {
    const r = await this.post<{ sampling_session_id: string }>("create_sampling_session", {
      type: "create_sampling_session",
      session_id: this.session,
      sampling_session_seq_id: this.samplingSeq++,
      ...("baseModel" in ref ? { base_model: ref.baseModel } : { model_path: ref.modelPath }),
    });
    return r.sampling_session_id;
  }

  nextSamplingSeqId(): number {
    return this.samplingSeq++;
  }

  /** asample against a sampling session, a tinker:// path or a base model; waits for the result. */
  async sample(
    target: { samplingSessionId: string } | { modelPath: string } | { baseModel: string },
    prompt: number[],
    params: SamplingParams,
    numSamples = 1,
    signal?: AbortSignal,
  ): Promise<SampleResponse> {
    const r = await this.post<{ request_id: string }>(
      "asample",
      {
        type: "sample",
        prompt: tokensInput(prompt),
        num_samples: numSamples,
        sampling_params: { temperature: 1, top_p: 1, top_k: -1, ...params },
        ...("samplingSessionId" in target ? { sampling_session_id: target.samplingSessionId } : "modelPath" in target ? { model_path: target.modelPath } : { base_model: target.baseModel }),
      },
      { signal },
    );
    return this.waitFuture<SampleResponse>(r.request_id, { signal });
  }
}

/** A training model: every op gets the next seq_id and is submitted in call order. */
export class TinkerModel {
  private seq = 0;
  private submitChain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly client: TinkerClient,
    readonly modelId: string,
    readonly baseModel: string,
  ) {}

  /**
   * Assigns the next seq_id and POSTs after every earlier op of this model was accepted; returns
   * the future's result. Callers may start several ops without awaiting (pipelining).
   */
  private op<T>(path: string, body: Record<string, unknown>): Promise<T> {
    const seqId = ++this.seq;
    const submitted = this.submitChain.then(() => this.client.post<{ request_id: string }>(path, { ...body, model_id: this.modelId, seq_id: seqId }));
    // Keep the chain going even when one submission fails (its seq_id is consumed by the server).
    this.submitChain = submitted.catch(() => undefined);
    return submitted.then((r) => this.client.waitFuture<T>(r.request_id));
  }

  forwardBackward(data: Datum[], lossFn: "cross_entropy" | "importance_sampling" | "ppo", lossFnConfig?: Record<string, number>): Promise<ForwardBackwardOutput> {
    return this.op("forward_backward", { type: "forward_backward", forward_backward_input: { data, loss_fn: lossFn, loss_fn_config: lossFnConfig ?? null } });
  }

  forward(data: Datum[], lossFn: "cross_entropy" | "importance_sampling" | "ppo", lossFnConfig?: Record<string, number>): Promise<ForwardBackwardOutput> {
    return this.op("forward", { type: "forward", forward_input: { data, loss_fn: lossFn, loss_fn_config: lossFnConfig ?? null } });
  }

  optimStep(adam: AdamParams): Promise<{ metrics?: Record<string, number> }> {
    return this.op("optim_step", { type: "optim_step", adam_params: adam });
  }

  /** Persistent (name given) or ephemeral (no name) publication of the current weights for sampling. */
  saveWeightsForSampler(name?: string): Promise<{ path?: string | null; sampling_session_id?: string | null }> {
    return this.op(
      "save_weights_for_sampler",
      name ? { type: "save_weights_for_sampler", path: name } : { type: "save_weights_for_sampler", sampling_session_seq_id: this.client.nextSamplingSeqId() },
    );
  }

  saveWeights(name: string, overwrite = false): Promise<{ path: string }> {
    return this.op("save_weights", { type: "save_weights", path: name, overwrite });
  }

  loadWeights(path: string, optimizer = true): Promise<{ path?: string }> {
    return this.op("load_weights", { type: "load_weights", path, optimizer });
  }

  getInfo(): Promise<Record<string, unknown>> {
    return this.client.post("get_info", { type: "get_info", model_id: this.modelId });
  }

  async unload(): Promise<void> {
    const r = await this.client.post<{ request_id: string }>("unload_model", { type: "unload_model", model_id: this.modelId });
    await this.client.waitFuture(r.request_id);
  }
}
