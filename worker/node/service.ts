/**
 * The embedded node's state and operations, independent of HTTP: sessions, training models
 * (each with its own weights and AdamW state), futures, samplers, checkpoints.
 *
 * Ordering: every op of a model that carries a seq_id runs strictly in seq_id order (first is 1).
 * A request may arrive up to `seqWindow` ahead of the next expected seq_id; it is held until the
 * gap fills (or failed after `gapTimeoutMs`). (model_id, seq_id) is an idempotency key: a retry
 * with the same payload gets the original request_id, a different payload gets HTTP 409. A request
 * rejected at submission (4xx) does not consume its seq_id. Sampling sessions have their own
 * seq_id key in the same way.
 *
 * Contracts of the strictest real server (SkyRL tx) are enforced: checkpoint names are reserved when
 * a save is submitted (409 on a duplicate, even on a retry: the name was taken by the first attempt),
 * load_weights is refused (400) once a model has any request, including a retry of the load itself,
 * create_model creates a new model on every call, and sampling from a sampler checkpoint that is still
 * being written answers 425. Test mode: `minFutureMs` keeps every future pending at least that long and
 * `pendingReply: "408"` answers an unfinished long poll with HTTP 408 (SkyRL) instead of try_again.
 *
 * Compute: tf work is synchronous, so long ops are cut into chunks that yield to the event loop
 * (micro-batches in training, decode steps in sampling). Each model's training ops form one
 * promise chain; sampling runs per sampler in batches of queued rows, so HTTP stays responsive.
 */
import { createHash, randomBytes, randomInt } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { checkpointExists, loadCheckpoint, saveCheckpoint } from "./checkpoint";
import {
  DEFAULT_CONFIG,
  type GPTConfig,
  type ParamMap,
  type SampledSequence,
  type SampleOptions,
  disposeParams,
  initParamValues,
  promptLogprobs,
  sampleRows,
  tensorsFromValues,
} from "./model";
import { estimateDatumBytes } from "../../lib/clients/tinker-proto";
import {
  ID_PATTERN,
  MAX_CHUNK_BYTES,
  MAX_DATUMS_PER_REQUEST,
  MAX_TOKENS_PER_REQUEST,
  UserError,
  type TensorData,
  type adamParamsSchema,
  type asampleSchema,
  type createModelSchema,
  type fwdInputSchema,
  type loadWeightsSchema,
  type saveWeightsForSamplerSchema,
  type saveWeightsSchema,
  modelInputTokens,
} from "./protocol";
import { encodeText } from "../../lib/renderers/tiny-gpt/tokenizer";
import type { KlType } from "./loss";
import { type LossConfig, DEFAULT_LOSS_CONFIG, Trainer, TrainingInputError, type TrainDatum, defaultTrainThreads } from "./train";

export const BASE_MODEL_NAME = "tiny-gpt";
export const TOKENIZER_ID = "envace/byte-chat-v1";

export interface BaseModel {
  name: string;
  cfg: GPTConfig;
  values: Map<string, Float32Array>;
  /** Frozen weights: base sampler and KL reference. */
  params: ParamMap;
  source: string;
}

export interface NodeServiceOptions {
  /** Root for checkpoints (default .data/node). */
  dataDir: string;
  /** Warm-start checkpoint directory for the base model; used when it exists. */
  warmStartDir?: string;
  /** Config of a randomly initialised base model when there is no warm-start checkpoint. */
  baseConfig?: GPTConfig;
  seed?: number;
  /** How long retrieve_future waits before answering try_again (or 408). */
  longPollMs?: number;
  /** What an unfinished long poll answers: hosted Tinker's `try_again` (default) or SkyRL's HTTP 408. */
  pendingReply?: "try_again" | "408";
  /** Test mode: every future stays pending at least this long (ms), past a client's per-request timeout. */
  minFutureMs?: number;
  /** forward_backward chunk limits (advertised in client/config, 413 beyond). */
  maxChunkDatums?: number;
  maxChunkBytes?: number;
  sessionTimeoutMs?: number;
  seqWindow?: number;
  gapTimeoutMs?: number;
  maxBatchRows?: number;
  maxQueuedRows?: number;
  /** Ephemeral sampler snapshots kept per model. */
  ephemeralSamplersPerModel?: number;
  /** Gradient worker threads per forward_backward (data parallel); default defaultTrainThreads(). */
  trainThreads?: number;
  /**
   * Train on worker threads only (default true), so the server's event loop keeps answering health
   * checks, future polls and samples while a forward_backward runs; false computes one share on it.
   */
  trainOffMainThread?: boolean;
}

type FutureState = "pending" | "done" | "failed";
interface FutureRecord {
  id: string;
  type: string;
  state: FutureState;
  result?: unknown;
  error?: string;
  category?: "user" | "server" | "unknown";
  waiters: Set<() => void>;
  createdAt: number;
}

interface Session {
  id: string;
  tags: string[];
  lastSeen: number;
  heartbeated: boolean;
  modelSeq: number;
  samplingSeq: number;
}

interface ModelState {
  id: string;
  sessionId: string;
  base: BaseModel;
  trainer: Trainer;
  nextSeq: number;
  seen: Map<number, { requestId: string; hash: string }>;
  /** Checkpoint names taken on this model ("weights/<name>", "sampler_weights/<name>"), by state. */
  checkpoints: Map<string, "pending" | "done" | "failed">;
  held: Map<number, { start: () => void; timer: NodeJS.Timeout }>;
  chain: Promise<void>;
  opsStarted: number;
  ephemeral: string[];
  unloaded: boolean;
}

interface PendingSample {
  rows: Array<{ prompt: number[]; options: SampleOptions }>;
  resolve: (seqs: SampledSequence[]) => void;
  reject: (err: Error) => void;
}

interface Sampler {
  id: string;
  cfg: GPTConfig;
  params: ParamMap;
  baseModel: string;
  modelPath: string | null;
  ownedParams: boolean;
  queue: PendingSample[];
  queuedRows: number;
  running: boolean;
  retired: boolean;
}

/** A sampling session: a handle on a sampler with its own seq_id idempotency keys. */
interface SamplingSessionRecord {
  id: string;
  sampler: Sampler;
  seen: Map<number, { requestId: string; hash: string }>;
}

export interface SampleRequest {
  prompt: number[];
  numSamples: number;
  maxTokens: number;
  temperature: number;
  topP: number;
  topK: number;
  stop: string | Array<string | number> | null | undefined;
  seed: number | null | undefined;
}

const newId = (prefix: string) => `${prefix}_${randomBytes(6).toString("hex")}`;
const hashPayload = (x: unknown) => createHash("sha256").update(JSON.stringify(x)).digest("hex");

const TINKER_PATH = /^tinker:\/\/([A-Za-z0-9_-]+)\/(?:(weights|sampler_weights)\/)?([A-Za-z0-9_-]+)$/;

export function parseTinkerPath(p: string): { modelId: string; kind: "weights" | "sampler_weights"; name: string } {
  const m = TINKER_PATH.exec(p);
  if (!m) throw new UserError(`path '${p}' is not a tinker:// path of this node (tinker://<model_id>/weights/<name> or .../sampler_weights/<name>)`);
  return { modelId: m[1], kind: (m[2] as "weights" | "sampler_weights" | undefined) ?? "sampler_weights", name: m[3] };
}

export class NodeService {
  readonly opts: Required<Omit<NodeServiceOptions, "warmStartDir" | "baseConfig">> & Pick<NodeServiceOptions, "warmStartDir" | "baseConfig">;
  private bases = new Map<string, BaseModel>();
  private sessions = new Map<string, Session>();
  private models = new Map<string, ModelState>();
  private futures = new Map<string, FutureRecord>();
  private samplers = new Map<string, Sampler>();
  /** Persistent sampler weights by tinker path, and bare published names → path. */
  private persistentSamplers = new Map<string, Sampler>();
  private publishedNames = new Map<string, string>();
  private samplingSessions = new Map<string, SamplingSessionRecord>();
  private reaper: NodeJS.Timeout | null = null;
  readonly stats = { sampledTokens: 0, trainedTokens: 0, optimSteps: 0, startedAt: Date.now() };

  constructor(opts: NodeServiceOptions) {
    this.opts = {
      seed: 0,
      longPollMs: 10_000,
      pendingReply: "try_again",
      minFutureMs: 0,
      maxChunkDatums: MAX_DATUMS_PER_REQUEST,
      maxChunkBytes: MAX_CHUNK_BYTES,
      sessionTimeoutMs: 300_000,
      seqWindow: 32,
      gapTimeoutMs: 120_000,
      maxBatchRows: 32,
      maxQueuedRows: 4096,
      ephemeralSamplersPerModel: 4,
      // Options given as undefined (unset environment variables) keep their defaults.
      ...(Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) as NodeServiceOptions),
      trainThreads: opts.trainThreads ?? defaultTrainThreads(),
      trainOffMainThread: opts.trainOffMainThread ?? true,
    };
  }

  /** Where training shares were computed, summed over loaded models (diagnostics and tests). */
  trainingThreads(): { workerShares: number; mainThreadShares: number } {
    let workerShares = 0;
    let mainThreadShares = 0;
    for (const m of this.models.values()) {
      workerShares += m.trainer.parallelStats.workerShares;
      mainThreadShares += m.trainer.parallelStats.mainThreadShares;
    }
    return { workerShares, mainThreadShares };
  }

  /** Loads (or initialises) the base model. */
  async init(): Promise<void> {
    let cfg: GPTConfig;
    let values: Map<string, Float32Array>;
    let source: string;
    if (this.opts.warmStartDir && (await checkpointExists(this.opts.warmStartDir))) {
      const ck = await loadCheckpoint(this.opts.warmStartDir);
      cfg = ck.config;
      values = ck.weights;
      source = `checkpoint ${this.opts.warmStartDir}`;
    } else {
      cfg = this.opts.baseConfig ?? DEFAULT_CONFIG;
      values = initParamValues(cfg, this.opts.seed);
      source = `random init (seed ${this.opts.seed})`;
    }
    this.bases.set(BASE_MODEL_NAME, { name: BASE_MODEL_NAME, cfg, values, params: tensorsFromValues(cfg, values), source });
    this.reaper = setInterval(() => this.reapSessions(), Math.min(60_000, this.opts.sessionTimeoutMs)).unref();
  }

  close(): void {
    if (this.reaper) clearInterval(this.reaper);
    for (const m of this.models.values()) this.unloadModelNow(m);
    for (const s of [...this.samplers.values(), ...this.persistentSamplers.values()]) this.retireSampler(s);
    for (const b of this.bases.values()) disposeParams(b.params);
    this.bases.clear();
  }

  baseModel(name: string): BaseModel {
    const b = this.bases.get(name);
    if (!b) throw new UserError(`unknown base model '${name}'; this node serves: ${[...this.bases.keys()].join(", ")}`, 404, "unknown_model");
    return b;
  }

  capabilities() {
    return { supported_models: [...this.bases.values()].map((b) => ({ model_name: b.name, max_context_length: b.cfg.contextLength })) };
  }

  describeBase(): { name: string; config: GPTConfig; source: string } {
    const b = this.baseModel(BASE_MODEL_NAME);
    return { name: b.name, config: b.cfg, source: b.source };
  }

  // ------------------------------------------------------------------ sessions

  createSession(tags: string[]): { session_id: string } {
    const id = newId("session");
    this.sessions.set(id, { id, tags, lastSeen: Date.now(), heartbeated: false, modelSeq: 0, samplingSeq: 0 });
    return { session_id: id };
  }

  heartbeat(sessionId: string): void {
    const s = this.session(sessionId);
    s.lastSeen = Date.now();
    s.heartbeated = true;
  }

  private session(id: string): Session {
    const s = this.sessions.get(id);
    if (!s) throw new UserError(`unknown session '${id}'`, 404, "unknown_session");
    return s;
  }

  /** Sessions that heartbeated once and then stopped lose their models (as on SkyRL). */
  reapSessions(now = Date.now()): string[] {
    const reaped: string[] = [];
    for (const s of this.sessions.values()) {
      if (s.heartbeated && now - s.lastSeen > this.opts.sessionTimeoutMs) {
        for (const m of [...this.models.values()]) if (m.sessionId === s.id) this.unloadModelNow(m);
        this.sessions.delete(s.id);
        reaped.push(s.id);
      }
    }
    return reaped;
  }

  // ------------------------------------------------------------------ futures

  private newFuture(type: string): FutureRecord {
    const f: FutureRecord = { id: newId("req"), type, state: "pending", waiters: new Set(), createdAt: Date.now() };
    this.futures.set(f.id, f);
    this.pruneFutures();
    return f;
  }

  private settle(f: FutureRecord, outcome: { result: unknown } | { error: unknown }): void {
    const wait = f.createdAt + this.opts.minFutureMs - Date.now();
    if (wait > 0) {
      setTimeout(() => this.settle(f, outcome), wait).unref();
      return;
    }
    if ("result" in outcome) {
      f.state = "done";
      f.result = outcome.result;
    } else {
      const e = outcome.error;
      f.state = "failed";
      f.error = e instanceof Error ? e.message : String(e);
      f.category = e instanceof UserError || e instanceof TrainingInputError ? "user" : "server";
      if (f.category === "server") console.error(`[node] ${f.type} ${f.id} failed:`, e);
    }
    for (const w of f.waiters) w();
    f.waiters.clear();
  }

  /** Keep at most 10k settled futures (oldest dropped). */
  private pruneFutures(): void {
    if (this.futures.size <= 10_000) return;
    for (const [id, f] of this.futures) {
      if (this.futures.size <= 9_000) break;
      if (f.state !== "pending") this.futures.delete(id);
    }
  }

  /** Long-polls a future: its record when settled, or null after `waitMs`. */
  async retrieveFuture(id: string, waitMs = this.opts.longPollMs): Promise<FutureRecord | null> {
    const f = this.futures.get(id);
    if (!f) throw new UserError(`unknown request_id '${id}'`, 404, "unknown_request");
    if (f.state !== "pending") return f;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, waitMs);
      function done() {
        clearTimeout(timer);
        f!.waiters.delete(done);
        resolve();
      }
      f.waiters.add(done);
    });
    return f.state === "pending" ? null : f;
  }

  /** Runs an async op under a new future (no ordering). */
  private detached(type: string, run: () => Promise<unknown>): { request_id: string } {
    const f = this.newFuture(type);
    run().then(
      (result) => this.settle(f, { result }),
      (error) => this.settle(f, { error }),
    );
    return { request_id: f.id };
  }

  // ------------------------------------------------------------------ models

  private model(id: string): ModelState {
    const m = this.models.get(id);
    if (!m || m.unloaded) throw new UserError(`unknown model_id '${id}'`, 404, "unknown_model");
    return m;
  }

  createModel(body: z.infer<typeof createModelSchema>): { request_id: string; model_id: string } {
    const session = this.session(body.session_id);
    const base = this.baseModel(body.base_model);
    session.modelSeq++;
    session.lastSeen = Date.now();
    const id = newId("model");
    const m: ModelState = {
      id,
      sessionId: session.id,
      base,
      trainer: new Trainer(base.cfg, base.values, base.params, { threads: this.opts.trainThreads, offMainThread: this.opts.trainOffMainThread }),
      nextSeq: 1,
      seen: new Map(),
      checkpoints: new Map(),
      held: new Map(),
      chain: Promise.resolve(),
      opsStarted: 0,
      ephemeral: [],
      unloaded: false,
    };
    this.models.set(id, m);
    const f = this.newFuture("create_model");
    this.settle(f, { result: { type: "create_model", model_id: id, base_model: base.name } });
    return { request_id: f.id, model_id: id };
  }

  getInfo(modelId: string) {
    const m = this.model(modelId);
    return {
      type: "get_info",
      model_id: m.id,
      model_name: m.base.name,
      is_lora: false,
      lora_rank: null,
      model_data: { arch: "tiny-gpt", model_name: m.base.name, tokenizer_id: TOKENIZER_ID },
      context_length: m.base.cfg.contextLength,
      config: m.base.cfg,
      optimizer_steps: m.trainer.optimizerSteps,
    };
  }

  /**
   * Submits an op of a model under the seq_id rules (see the file comment). `payload` is hashed
   * for idempotency; `run` executes in order on the model's chain.
   */
  private submit(
    modelId: string,
    seqId: number | undefined,
    type: string,
    payload: unknown,
    run: (m: ModelState) => Promise<unknown>,
    /** Checks that need the model and run after the idempotent-retry check; throwing rejects without consuming the seq_id. */
    precheck?: (m: ModelState) => void,
  ) {
    const m = this.model(modelId);
    const session = this.sessions.get(m.sessionId);
    if (session) session.lastSeen = Date.now();
    const hash = hashPayload([type, payload]);
    if (seqId) {
      const prev = m.seen.get(seqId);
      if (prev) {
        if (prev.hash === hash) return { request_id: prev.requestId, model_id: m.id };
        throw new UserError(`seq_id ${seqId} of model ${m.id} was already used by a different request`, 409, "seq_id_conflict");
      }
      if (seqId < m.nextSeq) throw new UserError(`seq_id ${seqId} of model ${m.id} is behind the next expected seq_id ${m.nextSeq}`, 409, "seq_id_conflict");
      if (seqId > m.nextSeq + this.opts.seqWindow)
        throw new UserError(`seq_id ${seqId} is out of order: model ${m.id} expects seq_id ${m.nextSeq} next (at most ${this.opts.seqWindow} ahead may be queued)`, 400, "seq_id_out_of_order");
    }
    precheck?.(m);
    const f = this.newFuture(type);
    const start = () => {
      m.chain = m.chain.then(async () => {
        if (m.unloaded) return this.settle(f, { error: new UserError(`model ${m.id} was unloaded`, 404) });
        m.opsStarted++;
        try {
          this.settle(f, { result: await run(m) });
        } catch (error) {
          this.settle(f, { error });
        }
      });
    };
    if (!seqId) {
      start();
      return { request_id: f.id, model_id: m.id };
    }
    m.seen.set(seqId, { requestId: f.id, hash });
    if (seqId === m.nextSeq) {
      start();
      m.nextSeq++;
      // Release held successors in order.
      for (let next = m.held.get(m.nextSeq); next; next = m.held.get(m.nextSeq)) {
        clearTimeout(next.timer);
        m.held.delete(m.nextSeq);
        next.start();
        m.nextSeq++;
      }
    } else {
      const timer = setTimeout(() => {
        m.held.delete(seqId);
        m.seen.delete(seqId);
        this.settle(f, { error: new UserError(`seq_id ${seqId} waited ${this.opts.gapTimeoutMs} ms for seq_id ${m.nextSeq}, which never arrived`) });
      }, this.opts.gapTimeoutMs);
      timer.unref();
      m.held.set(seqId, { start, timer });
    }
    return { request_id: f.id, model_id: m.id };
  }

  unloadModel(modelId: string) {
    return this.submit(modelId, undefined, "unload_model", null, async (m) => {
      this.unloadModelNow(m);
      return { type: "unload_model", model_id: m.id };
    });
  }

  private unloadModelNow(m: ModelState): void {
    if (m.unloaded) return;
    m.unloaded = true;
    for (const h of m.held.values()) clearTimeout(h.timer);
    m.held.clear();
    m.trainer.dispose();
    for (const id of m.ephemeral) {
      const s = this.samplers.get(id);
      if (s) this.retireSampler(s);
    }
    this.models.delete(m.id);
  }

  forwardBackward(modelId: string, seqId: number | undefined, input: z.infer<typeof fwdInputSchema>, forwardOnly: boolean) {
    const m = this.model(modelId);
    // Chunk limits as advertised in client/config (the SDK's defaults): a client must split bigger calls.
    if (input.data.length > this.opts.maxChunkDatums)
      throw new UserError(`request has ${input.data.length} datums; at most ${this.opts.maxChunkDatums} per request (client/config fwdbwd_max_chunk_len)`, 413, "too_large");
    const bytes = input.data.reduce((n, d) => n + estimatedDatumBytes(d), 0);
    if (bytes > this.opts.maxChunkBytes && input.data.length > 1)
      throw new UserError(`request is about ${bytes} bytes; at most ${this.opts.maxChunkBytes} per request (client/config fwdbwd_max_chunk_bytes_count)`, 413, "too_large");
    const datums = input.data.map((d, i) => toTrainDatum(d, i, m.base.cfg));
    const total = datums.reduce((n, d) => n + d.tokens.length, 0);
    if (total > MAX_TOKENS_PER_REQUEST) throw new UserError(`request has ${total} tokens; at most ${MAX_TOKENS_PER_REQUEST} per request`, 413, "too_large");
    const lc = toLossConfig(input.loss_fn_config ?? {});
    const only = forwardOnly || Boolean(input.forward_only);
    return this.submit(modelId, seqId, only ? "forward" : "forward_backward", input, async (ms) => {
      const r = await ms.trainer.forwardBackward(datums, input.loss_fn, lc, only);
      if (!only) this.stats.trainedTokens += total;
      return {
        loss_fn_output_type: "scalar",
        loss_fn_outputs: r.outputs.map((o) => ({
          logprobs: { data: o.logprobs, dtype: "float32", shape: [o.logprobs.length] },
          elementwise_loss: { data: o.elementwise_loss, dtype: "float32", shape: [o.elementwise_loss.length] },
        })),
        metrics: r.metrics,
      };
    });
  }

  optimStep(modelId: string, seqId: number | undefined, adam: z.infer<typeof adamParamsSchema>) {
    return this.submit(modelId, seqId, "optim_step", adam, async (m) => {
      const metrics = m.trainer.optimStep({
        learningRate: adam.learning_rate,
        beta1: adam.beta1,
        beta2: adam.beta2,
        eps: adam.eps,
        weightDecay: adam.weight_decay,
        gradClipNorm: adam.grad_clip_norm,
      });
      this.stats.optimSteps++;
      return { type: "optim_step", metrics };
    });
  }

  private modelDir(modelId: string, kind: "weights" | "sampler_weights", name: string): string {
    if (!ID_PATTERN.test(modelId) || !ID_PATTERN.test(name)) throw new UserError("invalid checkpoint path");
    return path.join(this.opts.dataDir, "models", modelId, kind, name);
  }

  /** Takes a checkpoint name at submission (SkyRL creates its checkpoint row there): a duplicate is 409. */
  private reserveCheckpoint(m: ModelState, kind: "weights" | "sampler_weights", name: string): void {
    const key = `${kind}/${name}`;
    if (m.checkpoints.has(key)) throw new UserError(`checkpoint '${name}' already exists for model ${m.id}`, 409, "checkpoint_exists");
    m.checkpoints.set(key, "pending");
  }

  /** Runs a checkpoint write, recording whether it finished (sampling from a pending one answers 425). */
  private async writing<T>(m: ModelState, kind: "weights" | "sampler_weights", name: string, write: () => Promise<T>): Promise<T> {
    try {
      const out = await write();
      m.checkpoints.set(`${kind}/${name}`, "done");
      return out;
    } catch (e) {
      m.checkpoints.set(`${kind}/${name}`, "failed");
      throw e;
    }
  }

  saveWeightsForSampler(body: z.infer<typeof saveWeightsForSamplerSchema>) {
    const session = this.sessions.get(this.model(body.model_id).sessionId);
    const name = body.path;
    return this.submit(
      body.model_id,
      body.seq_id,
      "save_weights_for_sampler",
      body,
      async (m) => {
        const params = m.trainer.snapshot();
        if (name) {
          const tinkerPath = `tinker://${m.id}/sampler_weights/${name}`;
          await this.writing(m, "sampler_weights", name, () =>
            saveCheckpoint(this.modelDir(m.id, "sampler_weights", name), m.base.cfg, m.trainer.weightValues(), null, {
              base_model: m.base.name,
              model_id: m.id,
              kind: "sampler_weights",
              optimizer_steps: m.trainer.optimizerSteps,
            }),
          );
          const old = this.persistentSamplers.get(tinkerPath);
          if (old) this.retireSampler(old);
          const sampler = this.makeSampler(m.base.cfg, params, m.base.name, tinkerPath, true);
          this.persistentSamplers.set(tinkerPath, sampler);
          this.samplers.set(sampler.id, sampler);
          this.publishedNames.set(name, tinkerPath);
          return { type: "save_weights_for_sampler", path: tinkerPath, sampling_session_id: this.openSamplingSession(sampler) };
        }
        const sampler = this.makeSampler(m.base.cfg, params, m.base.name, null, true);
        this.samplers.set(sampler.id, sampler);
        m.ephemeral.push(sampler.id);
        while (m.ephemeral.length > this.opts.ephemeralSamplersPerModel) {
          const evict = this.samplers.get(m.ephemeral.shift()!);
          if (evict) this.retireSampler(evict);
        }
        if (session) session.samplingSeq++;
        return { type: "save_weights_for_sampler", path: null, sampling_session_id: this.openSamplingSession(sampler, sampler.id) };
      },
      (m) => {
        if (name) this.reserveCheckpoint(m, "sampler_weights", name);
      },
    );
  }

  saveWeights(body: z.infer<typeof saveWeightsSchema>) {
    return this.submit(
      body.model_id,
      body.seq_id,
      "save_weights",
      body,
      (m) =>
        this.writing(m, "weights", body.path, async () => {
          await saveCheckpoint(this.modelDir(m.id, "weights", body.path), m.base.cfg, m.trainer.weightValues(), m.trainer.optimizerState(), {
            base_model: m.base.name,
            model_id: m.id,
            kind: "weights",
            optimizer_steps: m.trainer.optimizerSteps,
          });
          return { type: "save_weights", path: `tinker://${m.id}/weights/${body.path}` };
        }),
      (m) => this.reserveCheckpoint(m, "weights", body.path),
    );
  }

  /**
   * load_weights is allowed only as a model's first request (hosted Tinker and SkyRL tx). As on SkyRL,
   * a retry of the load itself is refused too: the first attempt already counts as a request.
   */
  loadWeights(body: z.infer<typeof loadWeightsSchema>) {
    const m = this.model(body.model_id);
    if (m.seen.size > 0 || m.opsStarted > 0 || m.nextSeq !== 1)
      throw new UserError(`load_weights is only allowed as the first request of a model (model ${m.id} already has requests); create a new model to load a checkpoint`, 400, "load_not_first");
    const ref = parseTinkerPath(body.path);
    if (ref.kind !== "weights") throw new UserError(`load_weights needs a training checkpoint (tinker://<model_id>/weights/<name>), got ${body.path}`);
    return this.submit(body.model_id, body.seq_id, "load_weights", body, async (ms) => {
      const dir = this.modelDir(ref.modelId, ref.kind, ref.name);
      if (!(await checkpointExists(dir))) throw new UserError(`checkpoint ${body.path} does not exist`, 404);
      const ck = await loadCheckpoint(dir, { optimizer: body.optimizer });
      if (JSON.stringify(ck.config) !== JSON.stringify(ms.base.cfg)) throw new UserError(`checkpoint ${body.path} has a different model config than ${ms.base.name}`);
      ms.trainer.load(ck.weights, body.optimizer ? ck.optimizer : undefined);
      return { type: "load_weights", path: body.path, model_id: ms.id };
    });
  }

  /** Deletes a finished checkpoint (DELETE /training_runs/{model}/checkpoints/{kind}/{name}). */
  async deleteCheckpoint(modelId: string, kind: "weights" | "sampler_weights", name: string): Promise<void> {
    const m = this.models.get(modelId);
    const state = m?.checkpoints.get(`${kind}/${name}`);
    if (state === "pending") throw new UserError("checkpoint is still being created", 425, "checkpoint_pending");
    const dir = this.modelDir(modelId, kind, name);
    if (!(await checkpointExists(dir))) throw new UserError(`checkpoint not found: ${modelId}/${kind}/${name}`, 404, "not_found");
    await fs.rm(dir, { recursive: true, force: true });
    m?.checkpoints.delete(`${kind}/${name}`);
    if (kind === "sampler_weights") {
      const tinkerPath = `tinker://${modelId}/sampler_weights/${name}`;
      const s = this.persistentSamplers.get(tinkerPath);
      if (s) this.retireSampler(s);
      if (this.publishedNames.get(name) === tinkerPath) this.publishedNames.delete(name);
    }
  }

  // ------------------------------------------------------------------ sampling

  private makeSampler(cfg: GPTConfig, params: ParamMap, baseModel: string, modelPath: string | null, ownedParams: boolean): Sampler {
    return { id: newId("sampling"), cfg, params, baseModel, modelPath, ownedParams, queue: [], queuedRows: 0, running: false, retired: false };
  }

  private baseSampler(name: string): Sampler {
    const key = `base:${name}`;
    let s = this.samplers.get(key);
    if (!s) {
      const b = this.baseModel(name);
      s = { ...this.makeSampler(b.cfg, b.params, b.name, null, false), id: key };
      this.samplers.set(key, s);
    }
    return s;
  }

  private retireSampler(s: Sampler): void {
    s.retired = true;
    for (const [id, rec] of this.samplingSessions) if (rec.sampler === s) this.samplingSessions.delete(id);
    this.samplers.delete(s.id);
    if (s.modelPath && this.persistentSamplers.get(s.modelPath) === s) this.persistentSamplers.delete(s.modelPath);
    if (!s.running) {
      for (const p of s.queue) p.reject(new UserError(`sampler ${s.id} was released`, 410));
      s.queue = [];
      if (s.ownedParams) disposeParams(s.params);
    }
  }

  /** A sampler for a tinker:// sampler path, loading it from disk when needed (425 while it is being written). */
  private async pathSampler(modelPath: string): Promise<Sampler> {
    const cached = this.persistentSamplers.get(modelPath);
    if (cached) return cached;
    const ref = parseTinkerPath(modelPath);
    if (this.models.get(ref.modelId)?.checkpoints.get(`${ref.kind}/${ref.name}`) === "pending")
      throw new UserError(`checkpoint ${modelPath} is still being created`, 425, "checkpoint_pending");
    const dir = this.modelDir(ref.modelId, ref.kind, ref.name);
    if (!(await checkpointExists(dir))) throw new UserError(`no weights at ${modelPath}`, 404, "unknown_model");
    const ck = await loadCheckpoint(dir);
    const base = typeof ck.meta.base_model === "string" && this.bases.has(ck.meta.base_model) ? ck.meta.base_model : BASE_MODEL_NAME;
    const again = this.persistentSamplers.get(modelPath);
    if (again) return again;
    const s = this.makeSampler(ck.config, tensorsFromValues(ck.config, ck.weights), base, modelPath, true);
    this.persistentSamplers.set(modelPath, s);
    this.samplers.set(s.id, s);
    return s;
  }

  /** Registers a sampling session on a sampler; its id is what asample's sampling_session_id names. */
  private openSamplingSession(sampler: Sampler, id = newId("sampling")): string {
    this.samplingSessions.set(id, { id, sampler, seen: new Map() });
    return id;
  }

  async createSamplingSession(sessionId: string, baseModel: string | null | undefined, modelPath: string | null | undefined): Promise<{ sampling_session_id: string }> {
    const session = this.session(sessionId);
    session.samplingSeq++;
    const sampler = baseModel ? this.baseSampler(baseModel) : await this.pathSampler(modelPath!);
    return { sampling_session_id: this.openSamplingSession(sampler) };
  }

  getSampler(id: string) {
    const s = this.samplingSessions.get(id)?.sampler ?? this.samplers.get(id);
    if (!s) throw new UserError(`unknown sampler '${id}'`, 404, "unknown_sampler");
    return { sampler_id: s.id, base_model: s.baseModel, model_path: s.modelPath };
  }

  /**
   * Resolves what to sample from: a sampling session id, a tinker:// path, a base model name,
   * or a published persistent sampler name (used by the OpenAI endpoint's `model`).
   */
  async resolveSampler(ref: { samplingSessionId?: string | null; modelPath?: string | null; baseModel?: string | null; name?: string | null }): Promise<Sampler> {
    if (ref.samplingSessionId) {
      const rec = this.samplingSessions.get(ref.samplingSessionId);
      if (!rec || rec.sampler.retired) throw new UserError(`unknown or expired sampling_session_id '${ref.samplingSessionId}'`, 404, "unknown_sampler");
      return rec.sampler;
    }
    if (ref.modelPath) return this.pathSampler(ref.modelPath);
    if (ref.baseModel) return this.baseSampler(ref.baseModel);
    if (ref.name) {
      if (this.bases.has(ref.name)) return this.baseSampler(ref.name);
      if (ref.name.startsWith("tinker://")) return this.pathSampler(ref.name);
      const published = this.publishedNames.get(ref.name);
      if (published) return this.pathSampler(published);
      const s = this.samplers.get(ref.name);
      if (s) return s;
      throw new UserError(`unknown model '${ref.name}'`, 404, "model_not_found");
    }
    throw new UserError("give one of sampling_session_id, model_path or base_model");
  }

  listSamplerNames(): string[] {
    return [...this.bases.keys(), ...this.publishedNames.keys()];
  }

  /** Samples `numSamples` continuations of one prompt. Row i uses seed + i. */
  sample(sampler: Sampler, req: SampleRequest): Promise<SampledSequence[]> {
    const V = sampler.cfg.vocabSize;
    const bad = req.prompt.find((t) => !Number.isInteger(t) || t < 0 || t >= V);
    if (bad !== undefined) throw new UserError(`prompt token ${bad} is outside the vocabulary 0..${V - 1}`, 400, "token_out_of_vocab");
    if (req.prompt.length === 0) throw new UserError("prompt is empty");
    if (req.prompt.length >= sampler.cfg.contextLength)
      throw new UserError(`prompt has ${req.prompt.length} tokens; the context length is ${sampler.cfg.contextLength}`, 400, "context_length_exceeded");
    const { stopTokens, stopSequences } = parseStop(req.stop, V);
    if (sampler.queuedRows + req.numSamples > this.opts.maxQueuedRows) throw new UserError("sampling queue is full; retry later", 429, "rate_limited");
    const seed = req.seed ?? randomInt(0, 2 ** 31 - 1);
    const rows = Array.from({ length: req.numSamples }, (_, i) => ({
      prompt: req.prompt,
      options: { maxTokens: req.maxTokens, temperature: req.temperature, topP: req.topP, topK: req.topK, stopTokens, stopSequences, seed: seed + i },
    }));
    return new Promise<SampledSequence[]>((resolve, reject) => {
      sampler.queue.push({ rows, resolve, reject });
      sampler.queuedRows += rows.length;
      void this.runSampler(sampler);
    });
  }

  private async runSampler(s: Sampler): Promise<void> {
    if (s.running) return;
    s.running = true;
    try {
      // Let requests that arrive in the same tick join the batch.
      await new Promise((r) => setImmediate(r));
      while (s.queue.length > 0) {
        const batch: PendingSample[] = [];
        let rows = 0;
        while (s.queue.length > 0 && (batch.length === 0 || rows + s.queue[0].rows.length <= this.opts.maxBatchRows)) {
          const p = s.queue.shift()!;
          batch.push(p);
          rows += p.rows.length;
        }
        s.queuedRows -= rows;
        try {
          const out = await sampleRows(s.params, s.cfg, batch.flatMap((p) => p.rows));
          let i = 0;
          for (const p of batch) {
            const seqs = out.slice(i, i + p.rows.length);
            i += p.rows.length;
            this.stats.sampledTokens += seqs.reduce((n, q) => n + q.tokens.length, 0);
            p.resolve(seqs);
          }
        } catch (e) {
          for (const p of batch) p.reject(e as Error);
        }
      }
    } finally {
      s.running = false;
      if (s.retired) this.retireSampler(s);
    }
  }

  /**
   * Tinker asample: returns a future id. Under a sampling session, (session, seq_id) is an idempotency
   * key: a retry with the same payload gets the original request_id, another payload gets 409.
   */
  async asample(body: z.infer<typeof asampleSchema>): Promise<{ request_id: string }> {
    const rec = body.sampling_session_id ? this.samplingSessions.get(body.sampling_session_id) : undefined;
    const hash = rec ? hashPayload(body) : "";
    if (rec && body.seq_id != null) {
      const prev = rec.seen.get(body.seq_id);
      if (prev) {
        if (prev.hash === hash) return { request_id: prev.requestId };
        throw new UserError(`seq_id ${body.seq_id} of sampling session ${rec.id} was already used by a different request`, 409, "seq_id_conflict");
      }
    }
    const sampler = await this.resolveSampler({ samplingSessionId: body.sampling_session_id, modelPath: body.model_path, baseModel: body.base_model });
    const prompt = modelInputTokens(body.prompt, "prompt");
    const sp = body.sampling_params;
    const run = this.sample(sampler, {
      prompt,
      numSamples: body.num_samples,
      maxTokens: sp.max_tokens,
      temperature: sp.temperature,
      topP: sp.top_p,
      topK: sp.top_k,
      stop: sp.stop,
      seed: sp.seed,
    });
    // Scored now (sample() has validated the prompt), while this sampler's weights are certainly alive.
    const scored = body.prompt_logprobs ? promptLogprobs(sampler.params, sampler.cfg, prompt) : null;
    const reply = this.detached("sample", async () => {
      const seqs = await run;
      return { type: "sample", sequences: seqs.map((q) => ({ stop_reason: q.stopReason, tokens: q.tokens, logprobs: q.logprobs })), prompt_logprobs: scored };
    });
    if (rec && body.seq_id != null) {
      rec.seen.set(body.seq_id, { requestId: reply.request_id, hash });
      if (rec.seen.size > 10_000) rec.seen.delete(rec.seen.keys().next().value!);
    }
    return reply;
  }
}

function parseStop(stop: SampleRequest["stop"], vocab: number): { stopTokens: number[]; stopSequences: number[][] } {
  if (stop === null || stop === undefined) return { stopTokens: [], stopSequences: [] };
  const list = typeof stop === "string" ? [stop] : stop;
  const stopTokens: number[] = [];
  const stopSequences: number[][] = [];
  for (const s of list) {
    if (typeof s === "number") {
      if (!Number.isInteger(s) || s < 0 || s >= vocab) throw new UserError(`stop token ${s} is outside the vocabulary 0..${vocab - 1}`, 400, "token_out_of_vocab");
      stopTokens.push(s);
    } else {
      const bytes = encodeText(s);
      if (bytes.length === 1) stopTokens.push(bytes[0]);
      else if (bytes.length > 1) stopSequences.push(bytes);
    }
  }
  return { stopTokens, stopSequences };
}

/** The SDK's proto-size estimate of a datum (what fwdbwd_max_chunk_bytes_count limits). */
function estimatedDatumBytes(d: z.infer<typeof fwdInputSchema>["data"][number]): number {
  return estimateDatumBytes({
    tokens: d.model_input.chunks.reduce((n, c) => n + ("tokens" in c ? (c.tokens as number[]).length : 0), 0),
    tensors: Object.entries(d.loss_fn_inputs).map(([name, t]) => ({ length: t.data.length, dtype: t.dtype === "int64" || (!t.dtype && name === "target_tokens") ? "int64" : "float32" })),
  });
}

function tensorValues(t: TensorData | undefined, name: string, n: number, i: number): number[] | undefined {
  if (!t) return undefined;
  if (t.data.length !== n) throw new UserError(`datum ${i}: loss_fn_inputs.${name} has ${t.data.length} values, model_input has ${n} tokens`);
  return t.data;
}

const KNOWN_INPUTS = new Set(["target_tokens", "weights", "logprobs", "advantages"]);

function toTrainDatum(d: z.infer<typeof fwdInputSchema>["data"][number], i: number, cfg: GPTConfig): TrainDatum {
  const tokens = modelInputTokens(d.model_input, `datum ${i}`);
  const n = tokens.length;
  if (n > cfg.contextLength) throw new UserError(`datum ${i}: ${n} tokens exceed the context length ${cfg.contextLength}`);
  for (const key of Object.keys(d.loss_fn_inputs)) {
    if (!KNOWN_INPUTS.has(key)) throw new UserError(`datum ${i}: loss_fn_inputs.${key} is not supported (known: ${[...KNOWN_INPUTS].join(", ")})`);
  }
  const targets = tensorValues(d.loss_fn_inputs.target_tokens, "target_tokens", n, i);
  if (!targets) throw new UserError(`datum ${i}: loss_fn_inputs.target_tokens is required`);
  for (const [name, toks] of [["model_input", tokens], ["target_tokens", targets]] as const) {
    const bad = toks.find((t) => !Number.isInteger(t) || t < 0 || t >= cfg.vocabSize);
    if (bad !== undefined) throw new UserError(`datum ${i}: ${name} token ${bad} is outside the vocabulary 0..${cfg.vocabSize - 1}`, 400, "token_out_of_vocab");
  }
  return {
    tokens,
    targets,
    weights: tensorValues(d.loss_fn_inputs.weights, "weights", n, i),
    logprobs: tensorValues(d.loss_fn_inputs.logprobs, "logprobs", n, i),
    advantages: tensorValues(d.loss_fn_inputs.advantages, "advantages", n, i),
  };
}

/** loss_fn_config.kl_type codes (numbers on the wire) → estimators. */
const KL_TYPE_BY_CODE: Record<number, KlType> = { 1: "k1", 2: "k2", 3: "low_var_kl" };

function toLossConfig(c: NonNullable<z.infer<typeof fwdInputSchema>["loss_fn_config"]>): LossConfig {
  const lc: LossConfig = {
    clipLowThreshold: c.clip_low_threshold ?? DEFAULT_LOSS_CONFIG.clipLowThreshold,
    clipHighThreshold: c.clip_high_threshold ?? DEFAULT_LOSS_CONFIG.clipHighThreshold,
    dualClipThreshold: c.dual_clip_threshold ?? null,
    klCoef: c.kl_coef ?? 0,
    klType: KL_TYPE_BY_CODE[c.kl_type ?? 3],
    entropyCoef: c.entropy_coef ?? 0,
  };
  if (lc.clipLowThreshold > lc.clipHighThreshold) throw new UserError("clip_low_threshold must not exceed clip_high_threshold");
  return lc;
}
