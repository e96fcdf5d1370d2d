/**
 * A test double of SkyRL tx's Tinker API server (NovaSky-AI/SkyRL skyrl/tinker/api.py + engine.py at
 * a956457), enforcing its contract exactly as that source defines it, without a model:
 *
 * - Validation as pydantic does it: 422 {detail:[{loc,msg,type}]}; unknown fields ignored.
 * - Futures: request_id is a string of an auto-increment integer; retrieve_future holds the call up
 *   to `holdMs` (SkyRL: 300 s) and answers 408 — never try_again; a failed future is HTTP 400
 *   {detail}; an unknown id 404.
 * - (model_id, seq_id) is the idempotency key of forward / forward_backward / optim_step /
 *   save_weights_for_sampler: same payload → same request_id, another payload → 409. save_weights
 *   and load_weights record no seq_id.
 * - Checkpoint rows are created at submission: a duplicate name is 409 (a retried save too); sampling
 *   from a checkpoint still being written is 425.
 * - load_weights is refused (400) once the model has any request, its own earlier attempt included.
 * - create_model creates a new model (and adapter) on every call; the JAX backend has
 *   max_lora_adapters − 1 slots (31) and max_lora_rank 32, both failing the future when exceeded.
 * - asample: a sampling_session_id needs a seq_id (422), max_tokens is required (400), stop is a list
 *   of ints or of strings; the sampler stops only at the stop tokens the request names. prompt_logprobs
 *   (added to SkyRL in July 2026) are returned when asked for and the double has a scoring function
 *   (`promptLogprobs`); the sampled ids come from `sampleTokens` when given (a scripted "model").
 * - Missing `weights` become ones, missing `logprobs`/`advantages` silently empty (trained as zeros —
 *   recorded in `trainedWithoutPolicyInputs` so tests can assert a client never does that); a datum
 *   without target_tokens is an unhandled KeyError: HTTP 500 "Internal Server Error".
 * - forward_backward metrics: {} (JAX) or total_loss:sum / pg_loss:sum / num_tokens:sum (train);
 *   optim_step: skyrl.ai/grad_norm, skyrl.ai/learning_rate. No loss:sum anywhere.
 * - Sessions that heartbeated and then went quiet past `sessionTimeoutMs` lose their models.
 * - No auth: API keys are ignored.
 * - Checkpoint archives (api.py get_checkpoint_archive_url / download_checkpoint_archive): GET
 *   training_runs/{model}/checkpoints/{name}/archive validates the sampler checkpoint (404 unknown, 425
 *   pending) and answers 302 to its own …/download route with an Expires header; /download serves a
 *   .tar.gz of the PEFT adapter (adapter_config.json with the model's rank, adapter_model.safetensors).
 *   `name` is one path segment (ID_PATTERN): hosted Tinker's "sampler_weights/<name>" form is a 404.
 * - GET samplers/{id}: {sampler_id, base_model, model_path} of a sampling session.
 *
 * Fault injection: `dropReply(path, times)` processes the next requests to `path` and then destroys
 * the connection (a lost reply).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { PROTO_CONTENT_TYPE, decodeForwardBackwardRequest, encodeForwardBackwardOutput, encodeSampleResponse } from "../../lib/clients/tinker-proto";
import { adapterArchive } from "./tinker-archive";

export interface SkyRLDoubleOptions {
  baseModel?: string;
  backend?: "jax" | "train";
  /** How long retrieve_future holds a pending future before 408 (SkyRL: 300 s). */
  holdMs?: number;
  /** How long the "engine" takes per request. */
  latencyMs?: number;
  maxLoraAdapters?: number;
  maxLoraRank?: number;
  sessionTimeoutMs?: number;
  /** The fake sampler emits this token after `eosAfter` tokens (it ends a sample only when the request names it). */
  eosToken?: number;
  eosAfter?: number;
  /** A scripted model: the ids sample k writes for a prompt (cut at the first stop id the request names, and at max_tokens). */
  sampleTokens?: ((prompt: number[], k: number) => number[]) | null;
  /** Log-probabilities of prompt tokens 1…n−1 (what the server computes for prompt_logprobs); null: not returned. */
  promptLogprobs?: ((prompt: number[]) => number[]) | null;
  /**
   * SkyRL-Train's total_loss:sum is (loss · weights).sum() over the request's datums ("sum", the real
   * server). The others are servers that reduce wrongly: the sum divided by the request's datums, or
   * by its target tokens (what the doctor's loss-scale check must catch).
   */
  lossReduction?: "sum" | "mean-per-request" | "token-mean";
}

type Status = "pending" | "completed" | "failed";
interface Future {
  id: number;
  type: string;
  modelId: string | null;
  seqId: number | null;
  payload: string;
  status: Status;
  result?: unknown;
  error?: string;
  waiters: Array<() => void>;
}
interface Model {
  id: string;
  sessionId: string;
  rank: number;
  loaded: boolean;
  requests: number;
  steps: number;
}
interface Checkpoint {
  status: "pending" | "completed" | "failed";
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(typeof detail === "string" ? detail : JSON.stringify(detail));
  }
}

const ID = /^[a-zA-Z0-9_-]+$/;
const hex8 = () => Math.random().toString(16).slice(2, 10).padEnd(8, "0");

function pydantic<T extends z.ZodTypeAny>(schema: T, body: unknown): z.infer<T> {
  const r = schema.safeParse(body);
  if (!r.success) throw new HttpError(422, r.error.issues.map((i) => ({ loc: ["body", ...i.path], msg: i.message, type: i.code })));
  return r.data;
}

const tensor = z.object({ data: z.union([z.array(z.number().int()), z.array(z.number())]) });
const datum = z.object({
  loss_fn_inputs: z.record(tensor),
  model_input: z.object({ chunks: z.array(z.object({ type: z.literal("encoded_text").default("encoded_text"), tokens: z.array(z.number().int()) })) }),
});
const ALLOWED_CONFIG: Record<string, string[]> = {
  cross_entropy: [],
  importance_sampling: [],
  ppo: ["clip_low_threshold", "clip_high_threshold", "value_clip"],
  gspo: ["clip_low_threshold", "clip_high_threshold"],
  cispo: ["clip_low_threshold", "clip_high_threshold"],
  ppo_critic: ["value_clip"],
  dppo: ["delta_low", "delta_high"],
};
const fwdInput = z
  .object({
    data: z.array(datum),
    loss_fn: z.enum(["cross_entropy", "importance_sampling", "ppo", "gspo", "cispo", "ppo_critic", "dppo"]),
    loss_fn_config: z.record(z.number()).nullish(),
  })
  .superRefine((v, ctx) => {
    const bad = Object.keys(v.loss_fn_config ?? {}).filter((k) => !ALLOWED_CONFIG[v.loss_fn].includes(k));
    if (bad.length > 0) ctx.addIssue({ code: "custom", message: `Invalid loss_fn_config keys for loss_fn='${v.loss_fn}': ${bad.join(", ")}` });
  });
const schemas = {
  createSession: z.object({ tags: z.array(z.string()), user_metadata: z.record(z.unknown()).nullish(), sdk_version: z.string() }),
  heartbeat: z.object({ session_id: z.string() }),
  createSamplingSession: z.object({ session_id: z.string(), sampling_session_seq_id: z.number().int(), base_model: z.string().nullish(), model_path: z.string().nullish() }),
  createModel: z.object({ session_id: z.string(), base_model: z.string(), lora_config: z.object({ rank: z.number().int(), seed: z.number().int().nullish() }) }),
  modelId: z.object({ model_id: z.string() }),
  forwardBackward: z.object({ model_id: z.string(), forward_backward_input: fwdInput, seq_id: z.number().int().nullish() }),
  forward: z.object({ model_id: z.string(), forward_input: fwdInput, seq_id: z.number().int().nullish() }),
  optimStep: z.object({
    model_id: z.string(),
    seq_id: z.number().int().nullish(),
    adam_params: z.object({
      learning_rate: z.number().min(0).default(1e-4),
      beta1: z.number().min(0).lt(1).default(0.9),
      beta2: z.number().min(0).lt(1).default(0.95),
      eps: z.number().gt(0).default(1e-12),
      weight_decay: z.number().min(0).default(0),
    }),
  }),
  saveForSampler: z
    .object({
      model_id: z.string(),
      path: z.string().regex(ID).max(255).nullish(),
      sampling_session_seq_id: z.number().int().nullish(),
      seq_id: z.number().int().nullish(),
    })
    .refine((b) => Boolean(b.path) || (b.sampling_session_seq_id != null && b.seq_id != null), "Either 'path' or both 'sampling_session_seq_id' and 'seq_id' must be provided"),
  saveWeights: z.object({ model_id: z.string(), path: z.string().regex(ID).max(255) }),
  loadWeights: z.object({ model_id: z.string(), path: z.string(), optimizer: z.boolean().default(true), seq_id: z.number().int().nullish() }),
  sample: z
    .object({
      num_samples: z.number().int().default(1),
      prompt: z.object({ chunks: z.array(z.object({ tokens: z.array(z.number().int()) })) }),
      sampling_params: z.object({
        max_tokens: z.number().int().nullish(),
        seed: z.number().int().nullish(),
        stop: z.union([z.array(z.number().int()), z.array(z.string())]).nullish(),
        temperature: z.number().default(1),
        top_k: z.number().int().default(-1),
        top_p: z.number().default(1),
      }),
      base_model: z.string().nullish(),
      model_path: z.string().nullish(),
      sampling_session_id: z.string().nullish(),
      seq_id: z.number().int().nullish(),
      prompt_logprobs: z.boolean().nullish(),
      topk_prompt_logprobs: z.number().int().default(0),
    })
    .superRefine((b, ctx) => {
      if (b.topk_prompt_logprobs > 0) ctx.addIssue({ code: "custom", message: "topk_prompt_logprobs is not supported by the JAX backend" });
      if (b.sampling_session_id != null) {
        if (b.seq_id == null) ctx.addIssue({ code: "custom", message: "'seq_id' must be provided when 'sampling_session_id' is used" });
      } else if ((b.base_model == null) === (b.model_path == null)) {
        ctx.addIssue({ code: "custom", message: "When 'sampling_session_id' is not provided, exactly one of 'base_model' or 'model_path' must be provided" });
      }
    }),
  retrieve: z.object({ request_id: z.string() }),
};

export class SkyRLDouble {
  readonly o: Required<SkyRLDoubleOptions>;
  private server: http.Server | null = null;
  url = "";
  private nextRequestId = 1;
  readonly futures = new Map<number, Future>();
  readonly sessions = new Map<string, { lastHeartbeat: number | null; expired: boolean }>();
  readonly samplingSessions = new Map<string, { baseModel: string | null; modelPath: string | null }>();
  readonly models = new Map<string, Model>();
  readonly checkpoints = new Map<string, Checkpoint>();
  /** Every request the double received: method, path, content type, seq_id, body bytes. */
  readonly requests: Array<{ path: string; contentType: string; bytes: number; seqId?: number | null; body?: Record<string, unknown> }> = [];
  /** Archive requests (the 302 route and the download route), in order. */
  readonly archiveRequests: Array<{ modelId: string; name: string; what: string }> = [];
  /** Datums trained with a policy loss but without logprobs or advantages (SkyRL trains zeros). */
  readonly trainedWithoutPolicyInputs: number[] = [];
  private drops = new Map<string, number>();
  private reaper: NodeJS.Timeout | null = null;

  constructor(opts: SkyRLDoubleOptions = {}) {
    this.o = {
      baseModel: "Qwen/Qwen3-8B",
      backend: "jax",
      holdMs: 300_000,
      latencyMs: 5,
      maxLoraAdapters: 32,
      maxLoraRank: 32,
      sessionTimeoutMs: 300_000,
      eosToken: 7,
      eosAfter: 3,
      sampleTokens: null,
      promptLogprobs: null,
      lossReduction: "sum",
      ...opts,
    };
  }

  /** The next `times` requests to `path` are processed, then their connection is destroyed. */
  dropReply(path: string, times = 1): void {
    this.drops.set(path, (this.drops.get(path) ?? 0) + times);
  }

  liveAdapters(): number {
    return [...this.models.values()].filter((m) => m.loaded).length;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.reaper = setInterval(() => this.reap(), Math.min(1000, this.o.sessionTimeoutMs)).unref();
    return this;
  }

  async close(): Promise<void> {
    if (this.reaper) clearInterval(this.reaper);
    for (const f of this.futures.values()) for (const w of f.waiters.splice(0)) w();
    await new Promise<void>((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  /** engine.cleanup_stale_sessions: sessions whose last heartbeat is older than the timeout lose their models. */
  reap(now = Date.now()): void {
    for (const [id, s] of this.sessions) {
      if (s.expired || s.lastHeartbeat === null || now - s.lastHeartbeat <= this.o.sessionTimeoutMs) continue;
      s.expired = true;
      for (const m of this.models.values()) if (m.sessionId === id) m.loaded = false;
    }
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://x");
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const contentType = String(req.headers["content-type"] ?? "");
    const path = url.pathname.replace(/^\/api\/v1\//, "");
    let reply: { status: number; json?: unknown; proto?: Uint8Array; text?: string; bytes?: Buffer; headers?: Record<string, string> };
    let body: Record<string, unknown> = {};
    try {
      if (contentType.includes(PROTO_CONTENT_TYPE)) {
        if (path !== "forward_backward") throw new HttpError(422, "unexpected protobuf body");
        const d = decodeForwardBackwardRequest(raw);
        body = {
          model_id: d.model_id,
          seq_id: d.seq_id || null,
          forward_only: d.forward_only,
          forward_backward_input: {
            loss_fn: d.loss_fn,
            loss_fn_config: d.loss_fn_config,
            data: d.data.map((x) => ({ model_input: { chunks: [{ type: "encoded_text", tokens: x.tokens }] }, loss_fn_inputs: x.loss_fn_inputs })),
          },
        };
      } else if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString("utf8"));
        } catch {
          throw new HttpError(422, [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }]);
        }
      }
      this.requests.push({ path, contentType, bytes: raw.length, seqId: (body.seq_id as number | null | undefined) ?? null, body: contentType.includes(PROTO_CONTENT_TYPE) ? undefined : body });
      reply = await this.route(req.method ?? "GET", path, url.pathname, body, String(req.headers.accept ?? ""));
    } catch (e) {
      if (e instanceof HttpError) reply = { status: e.status, json: { detail: e.detail } };
      else reply = { status: 500, text: "Internal Server Error" };
    }
    const drops = this.drops.get(path) ?? 0;
    if (drops > 0) {
      this.drops.set(path, drops - 1);
      req.socket.destroy();
      return;
    }
    if (reply.bytes || reply.headers?.location) {
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.bytes);
    } else if (reply.proto) {
      res.writeHead(reply.status, { "content-type": PROTO_CONTENT_TYPE });
      res.end(reply.proto);
    } else if (reply.text !== undefined) {
      res.writeHead(reply.status, { "content-type": "text/plain" });
      res.end(reply.text);
    } else {
      res.writeHead(reply.status, { "content-type": "application/json" });
      res.end(reply.status === 204 ? undefined : JSON.stringify(reply.json ?? null));
    }
  }

  private future(type: string, modelId: string | null, seqId: number | null, payload: unknown, run: () => unknown): number {
    const serialized = JSON.stringify(payload);
    if (modelId !== null && seqId !== null) {
      const existing = [...this.futures.values()].find((f) => f.modelId === modelId && f.seqId === seqId);
      if (existing) {
        if (existing.type !== type || existing.payload !== serialized) throw new HttpError(409, "Training request sequence number was reused");
        return existing.id;
      }
    }
    const f: Future = { id: this.nextRequestId++, type, modelId, seqId, payload: serialized, status: "pending", waiters: [] };
    this.futures.set(f.id, f);
    if (modelId) {
      const m = this.models.get(modelId);
      if (m && type !== "create_model") m.requests++;
    }
    setTimeout(() => {
      try {
        f.result = run();
        f.status = "completed";
      } catch (e) {
        f.error = e instanceof Error ? e.message : String(e);
        f.status = "failed";
      }
      for (const w of f.waiters.splice(0)) w();
    }, this.o.latencyMs).unref();
    return f.id;
  }

  private model(id: string): Model {
    const m = this.models.get(id);
    if (!m) throw new HttpError(404, "Model not found");
    return m;
  }

  private loadedModel(id: string): Model {
    const m = this.models.get(id);
    if (!m || !m.loaded) throw new Error(`Model ${id} not loaded`);
    return m;
  }

  private createCheckpoint(modelId: string, name: string, kind: "training" | "sampler"): void {
    this.model(modelId);
    const key = `${modelId}/${kind}/${name}`;
    if (this.checkpoints.has(key)) throw new HttpError(409, `Checkpoint '${name}' already exists for model '${modelId}'`);
    this.checkpoints.set(key, { status: "pending" });
  }

  private validateCheckpoint(modelId: string, name: string, kind: "training" | "sampler"): void {
    const c = this.checkpoints.get(`${modelId}/${kind}/${name}`);
    if (!c) throw new HttpError(404, `Checkpoint not found: ${modelId}/${name}`);
    if (c.status === "pending") throw new HttpError(425, "Checkpoint is still being created");
    if (c.status === "failed") throw new HttpError(500, "Checkpoint creation failed");
  }

  private writeCheckpoint(modelId: string, name: string, kind: "training" | "sampler"): void {
    this.loadedModel(modelId);
    this.checkpoints.set(`${modelId}/${kind}/${name}`, { status: "completed" });
  }

  private async route(
    method: string,
    path: string,
    pathname: string,
    body: Record<string, unknown>,
    accept: string,
  ): Promise<{ status: number; json?: unknown; proto?: Uint8Array; bytes?: Buffer; headers?: Record<string, string> }> {
    const ok = (json: unknown) => ({ status: 200, json });
    if (method === "GET" && pathname === "/") return ok({ name: "Tinker API Mock", version: "0.0.1", endpoints: {} });
    const key = `${method} ${path}`;
    switch (key) {
      case "POST client/config":
        return ok({ pjwt_auth_enabled: false });
      case "GET healthz":
        return ok({ status: "ok" });
      case "GET get_server_capabilities":
        return ok({ supported_models: [{ model_name: this.o.baseModel }] });
      case "POST create_session": {
        pydantic(schemas.createSession, body);
        const id = `session_${hex8()}`;
        this.sessions.set(id, { lastHeartbeat: null, expired: false });
        return ok({ type: "create_session", session_id: id, info_message: null, warning_message: null, error_message: null });
      }
      case "POST session_heartbeat": {
        const b = pydantic(schemas.heartbeat, body);
        const s = this.sessions.get(b.session_id);
        if (!s) throw new HttpError(404, "Session not found");
        s.lastHeartbeat = Date.now();
        return ok({ type: "session_heartbeat" });
      }
      case "POST create_sampling_session": {
        const b = pydantic(schemas.createSamplingSession, body);
        if (!this.sessions.has(b.session_id)) throw new HttpError(404, "Session not found");
        if ((b.base_model == null) === (b.model_path == null)) throw new HttpError(400, "Exactly one of base_model or model_path must be provided");
        const id = `sampling_${hex8()}`;
        this.samplingSessions.set(id, { baseModel: b.base_model ?? null, modelPath: b.model_path ?? null });
        return ok({ type: "create_sampling_session", sampling_session_id: id });
      }
      case "POST create_model": {
        const b = pydantic(schemas.createModel, body);
        if (!this.sessions.has(b.session_id)) throw new HttpError(404, "Session not found");
        const id = `model_${hex8()}`;
        const m: Model = { id, sessionId: b.session_id, rank: b.lora_config.rank, loaded: false, requests: 0, steps: 0 };
        this.models.set(id, m);
        const requestId = this.future("create_model", id, null, b, () => {
          if (this.liveAdapters() >= this.o.maxLoraAdapters - 1) throw new Error(`Maximum number of LoRA adapters (${this.o.maxLoraAdapters}) reached`);
          if (!(m.rank > 0 && m.rank <= this.o.maxLoraRank)) throw new Error(`LoRA rank ${m.rank} must be between 1 and ${this.o.maxLoraRank}`);
          m.loaded = true;
          return { model_id: id, base_model: this.o.baseModel, lora_config: { rank: m.rank, alpha: 32, seed: 0 } };
        });
        return ok({ model_id: id, base_model: b.base_model, lora_config: b.lora_config, status: "created", request_id: String(requestId) });
      }
      case "POST get_info": {
        const m = this.model(pydantic(schemas.modelId, body).model_id);
        return ok({ model_id: m.id, status: m.loaded ? "created" : "unloaded", model_data: { base_model: this.o.baseModel, lora_config: { rank: m.rank }, model_name: this.o.baseModel } });
      }
      case "POST unload_model": {
        const m = this.model(pydantic(schemas.modelId, body).model_id);
        const requestId = this.future("unload_model", m.id, null, {}, () => {
          m.loaded = false;
          return { model_id: m.id, status: "unloaded" };
        });
        return ok({ request_id: String(requestId), model_id: m.id });
      }
      case "POST forward_backward":
      case "POST forward": {
        const b =
          path === "forward"
            ? (({ forward_input, ...rest }) => ({ ...rest, forward_backward_input: forward_input }))(pydantic(schemas.forward, body))
            : pydantic(schemas.forwardBackward, body);
        this.model(b.model_id);
        const input = b.forward_backward_input;
        // Datum.to_types(): target_tokens is indexed without a check (KeyError → 500).
        input.data.forEach((d, i) => {
          if (!d.loss_fn_inputs.target_tokens) throw new Error(`KeyError: 'target_tokens' (datum ${i})`);
          if (input.loss_fn !== "cross_entropy" && (!d.loss_fn_inputs.logprobs || !d.loss_fn_inputs.advantages)) this.trainedWithoutPolicyInputs.push(i);
        });
        const type = path === "forward" || body.forward_only ? "forward" : "forward_backward";
        const requestId = this.future(type, b.model_id, b.seq_id ?? null, input, () => {
          this.loadedModel(b.model_id);
          const outputs = input.data.map((d) => {
            const n = d.loss_fn_inputs.target_tokens.data.length;
            const adv = d.loss_fn_inputs.advantages?.data ?? [];
            const w = d.loss_fn_inputs.weights?.data ?? new Array<number>(n).fill(1);
            const loss = Array.from({ length: n }, (_, i) => -(adv[i] ?? 0) * (w[i] ?? 1));
            return { elementwise_loss: { data: loss, dtype: "float32", shape: [n] }, logprobs: { data: new Array<number>(n).fill(-1), dtype: "float32", shape: [n] } };
          });
          const total = outputs.reduce((s, o) => s + o.elementwise_loss.data.reduce((a, x) => a + x, 0), 0);
          const tokens = outputs.reduce((s, o) => s + o.elementwise_loss.data.length, 0);
          const reduced = this.o.lossReduction === "mean-per-request" ? total / outputs.length : this.o.lossReduction === "token-mean" ? total / tokens : total;
          const metrics = this.o.backend === "jax" ? {} : { "total_loss:sum": reduced, "pg_loss:sum": reduced, "num_tokens:sum": tokens, "policy_lr:last": 1e-5 };
          return { loss_fn_output_type: "scalar", loss_fn_outputs: outputs, metrics };
        });
        return ok({ future_id: String(requestId), status: "pending", request_id: String(requestId) });
      }
      case "POST optim_step": {
        const b = pydantic(schemas.optimStep, body);
        this.model(b.model_id);
        const requestId = this.future("optim_step", b.model_id, b.seq_id ?? null, b.adam_params, () => {
          const m = this.loadedModel(b.model_id);
          m.steps++;
          return { metrics: { "skyrl.ai/grad_norm": 0.5, "skyrl.ai/learning_rate": b.adam_params.learning_rate } };
        });
        return ok({ future_id: String(requestId), status: "pending", request_id: String(requestId) });
      }
      case "POST load_weights": {
        const b = pydantic(schemas.loadWeights, body);
        const m = this.model(b.model_id);
        if (m.requests > 0) throw new HttpError(400, `LoadWeights is not permitted with seq_id ${b.seq_id ?? m.requests + 1}`);
        const p = /^tinker:\/\/([^/]+)\/weights\/([^/]+)$/.exec(b.path);
        if (!p) throw new HttpError(400, "request.path must be in format tinker://source_model_id/weights/checkpoint_id");
        this.validateCheckpoint(p[1], p[2], "training");
        const requestId = this.future("load_weights", m.id, null, { source: p[1], ckpt: p[2], optimizer: b.optimizer }, () => {
          this.loadedModel(m.id);
          return { type: "load_weights" };
        });
        return ok({ future_id: String(requestId), status: "pending", request_id: String(requestId) });
      }
      case "POST save_weights": {
        const b = pydantic(schemas.saveWeights, body);
        this.createCheckpoint(b.model_id, b.path, "training");
        const requestId = this.future("save_weights", b.model_id, null, { path: b.path }, () => {
          this.writeCheckpoint(b.model_id, b.path, "training");
          return { path: `tinker://${b.model_id}/weights/${b.path}`, type: "save_weights" };
        });
        return ok({ future_id: String(requestId), status: "pending", request_id: String(requestId) });
      }
      case "POST save_weights_for_sampler": {
        const b = pydantic(schemas.saveForSampler, body);
        this.model(b.model_id);
        const name = b.path || `ss${b.sampling_session_seq_id}_seq${b.seq_id}`;
        const ephemeral = b.sampling_session_seq_id != null && b.seq_id != null;
        this.createCheckpoint(b.model_id, name, "sampler");
        let sessionId: string | null = null;
        try {
          const requestId = this.future("save_weights_for_sampler", b.model_id, b.seq_id ?? null, { path: name, sss: b.sampling_session_seq_id, seq: b.seq_id }, () => {
            this.writeCheckpoint(b.model_id, name, "sampler");
            return { path: ephemeral ? null : `tinker://${b.model_id}/${name}`, type: "save_weights_for_sampler", sampling_session_id: sessionId };
          });
          if (ephemeral) {
            sessionId = `sampling_${hex8()}`;
            this.samplingSessions.set(sessionId, { baseModel: null, modelPath: `tinker://${b.model_id}/sampler_weights/${name}` });
          }
          return ok({ future_id: String(requestId), status: "pending", request_id: String(requestId) });
        } catch (e) {
          this.checkpoints.delete(`${b.model_id}/sampler/${name}`); // the transaction rolls back
          throw e;
        }
      }
      case "POST asample": {
        const b = pydantic(schemas.sample, body);
        if (b.sampling_session_id?.includes(":")) throw new HttpError(400, "sampling_session_id must not contain ':' (the routing-key delimiter)");
        let modelPath = b.model_path ?? null;
        if (b.sampling_session_id) {
          const s = this.samplingSessions.get(b.sampling_session_id);
          if (!s) throw new HttpError(404, "Sampling session not found");
          modelPath = s.modelPath;
        }
        if (modelPath) {
          const p = /^tinker:\/\/([^/]+)\/(?:sampler_weights\/)?([^/]+)$/.exec(modelPath);
          if (!p) throw new HttpError(400, "model_path must be tinker://model_id/checkpoint_id or tinker://model_id/sampler_weights/checkpoint_id");
          this.model(p[1]);
          this.validateCheckpoint(p[1], p[2], "sampler");
        }
        const sp = b.sampling_params;
        if (sp.max_tokens == null) throw new HttpError(400, "max_tokens is currently required");
        if (sp.max_tokens <= 0) throw new HttpError(400, "max_tokens must be a positive number");
        const stopTokens = (sp.stop ?? []).filter((s): s is number => typeof s === "number");
        const maxTokens = sp.max_tokens;
        const prompt = b.prompt.chunks.flatMap((c) => c.tokens);
        const script = this.o.sampleTokens;
        const scorer = this.o.promptLogprobs;
        const requestId = this.future("sample", null, null, b, () => ({
          sequences: Array.from({ length: b.num_samples }, (_, k) => {
            const written = script ? script(prompt, k) : null;
            const tokens: number[] = [];
            let reason: "stop" | "length" = "length";
            while (tokens.length < maxTokens && (!written || tokens.length < written.length)) {
              const t = written ? written[tokens.length]! : tokens.length === this.o.eosAfter ? this.o.eosToken : 100 + ((tokens.length + k) % 50);
              tokens.push(t);
              if (stopTokens.includes(t)) {
                reason = "stop";
                break;
              }
            }
            return { stop_reason: reason, tokens, logprobs: tokens.map(() => -0.5) };
          }),
          prompt_logprobs: b.prompt_logprobs && scorer ? [null, ...scorer(prompt)] : null,
          topk_prompt_logprobs: null,
        }));
        return ok({ future_id: String(requestId), status: "pending", request_id: String(requestId) });
      }
      case "POST retrieve_future": {
        const b = pydantic(schemas.retrieve, body);
        if (!/^\d+$/.test(b.request_id)) throw new Error(`invalid literal for int(): '${b.request_id}'`);
        const f = this.futures.get(Number(b.request_id));
        if (!f) throw new HttpError(404, "Future not found");
        if (f.status === "pending") {
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, this.o.holdMs);
            f.waiters.push(() => (clearTimeout(t), resolve()));
          });
        }
        if (f.status === "pending") throw new HttpError(408, "Timeout waiting for result");
        if (f.status === "failed") throw new HttpError(400, f.error);
        if (accept.includes(PROTO_CONTENT_TYPE) && (f.type === "sample" || f.type === "forward" || f.type === "forward_backward")) {
          const proto = f.type === "sample" ? encodeSampleResponse(f.result as never) : encodeForwardBackwardOutput(f.result as never);
          return { status: 200, proto };
        }
        return ok(f.result);
      }
      case "POST telemetry":
        return ok({ status: "accepted" });
    }
    const archive = /^training_runs\/([^/]+)\/checkpoints\/([^/]+)\/(archive|download)$/.exec(path);
    if (method === "GET" && archive) {
      const [, modelId, name, what] = archive as unknown as [string, string, string, string];
      if (!ID.test(modelId) || !ID.test(name)) throw new HttpError(422, "Invalid checkpoint_id");
      this.validateCheckpoint(modelId, name, "sampler");
      this.archiveRequests.push({ modelId, name, what });
      if (what === "archive") {
        const expires = new Date(Date.now() + 120 * 60_000).toUTCString();
        return { status: 302, headers: { location: `${this.url}/api/v1/training_runs/${modelId}/checkpoints/${name}/download`, expires } };
      }
      const bytes = adapterArchive({ rank: this.model(modelId).rank, style: "skyrl", baseModel: this.o.baseModel });
      return { status: 200, bytes, headers: { "content-type": "application/octet-stream", "content-disposition": `attachment; filename="${modelId}_${name}.tar.gz"`, "content-length": String(bytes.length) } };
    }
    const sampler = /^samplers\/([^/]+)$/.exec(path);
    if (method === "GET" && sampler) {
      const s = this.samplingSessions.get(decodeURIComponent(sampler[1]!));
      if (!s) throw new HttpError(404, "Sampler not found");
      return ok({ sampler_id: sampler[1], base_model: s.baseModel ?? this.o.baseModel, model_path: s.modelPath });
    }
    const del = /^training_runs\/([^/]+)\/checkpoints\/(weights|sampler_weights)\/([^/]+)$/.exec(path);
    if (method === "DELETE" && del) {
      const k = `${del[1]}/${del[2] === "weights" ? "training" : "sampler"}/${del[3]}`;
      const c = this.checkpoints.get(k);
      if (!c) throw new HttpError(404, `Checkpoint not found: ${del[1]}/${del[3]}`);
      if (c.status === "pending") throw new HttpError(425, "Checkpoint is still being created");
      this.checkpoints.delete(k);
      return { status: 204 };
    }
    throw new HttpError(404, "Not Found");
  }
}
