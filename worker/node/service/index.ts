/**
 * The embedded node's state and operations, independent of HTTP: sessions, training models (each with
 * its own weights and AdamW state), futures, samplers, checkpoints. NodeService is the one entry point
 * (worker/node/server.ts and openai-api.ts call it); each concern is a module of this folder over one
 * NodeState (see README.md): the seq_id rules in ordering.ts, the strictest real server's contracts
 * (SkyRL tx) in checkpoints.ts and sampler.ts. Test mode: `minFutureMs` keeps every future pending at
 * least that long and `pendingReply: "408"` answers an unfinished long poll with HTTP 408 (SkyRL).
 *
 * Compute: tf work is synchronous, so long ops are cut into chunks that yield to the event loop
 * (micro-batches in training, decode steps in sampling). Each model's training ops form one
 * promise chain; sampling runs per sampler in batches of queued rows, so HTTP stays responsive.
 */
import type { z } from "zod";
import { checkpointExists, loadCheckpoint } from "../checkpoint";
import { DEFAULT_CONFIG, type GPTConfig, type SampledSequence, disposeParams, initParamValues, tensorsFromValues } from "../model";
import {
  MAX_CHUNK_BYTES,
  MAX_DATUMS_PER_REQUEST,
  type adamParamsSchema,
  type asampleSchema,
  type createModelSchema,
  type fwdInputSchema,
  type loadWeightsSchema,
  type saveWeightsForSamplerSchema,
  type saveWeightsSchema,
} from "../protocol";
import { defaultTrainThreads } from "../train";
import * as checkpoints from "./checkpoints";
import { retrieveFuture } from "./futures";
import { unloadModelNow } from "./ordering";
import * as sampling from "./sampler";
import * as sessions from "./sessions";
import { BASE_MODEL_NAME, type BaseModel, type FutureRecord, type NodeServiceOptions, type NodeState, type ResolvedNodeOptions, type SampleRequest, type Sampler, baseModel, newNodeState } from "./state";
import * as training from "./training";

export { parseTinkerPath } from "./paths";
export { BASE_MODEL_NAME, TOKENIZER_ID, type BaseModel, type NodeServiceOptions, type SampleRequest } from "./state";

export class NodeService {
  readonly opts: ResolvedNodeOptions;
  private readonly st: NodeState;
  private reaper: NodeJS.Timeout | null = null;
  readonly stats: NodeState["stats"];

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
    this.st = newNodeState(this.opts);
    this.stats = this.st.stats;
  }

  /** The loaded models (diagnostics and tests). */
  private get models() {
    return this.st.models;
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
    this.st.bases.set(BASE_MODEL_NAME, { name: BASE_MODEL_NAME, cfg, values, params: tensorsFromValues(cfg, values), source });
    this.reaper = setInterval(() => this.reapSessions(), Math.min(60_000, this.opts.sessionTimeoutMs)).unref();
  }

  close(): void {
    if (this.reaper) clearInterval(this.reaper);
    for (const m of this.st.models.values()) unloadModelNow(this.st, m);
    for (const s of [...this.st.samplers.values(), ...this.st.persistentSamplers.values()]) sampling.retireSampler(this.st, s);
    for (const b of this.st.bases.values()) disposeParams(b.params);
    this.st.bases.clear();
  }

  baseModel(name: string): BaseModel {
    return baseModel(this.st, name);
  }

  capabilities() {
    return { supported_models: [...this.st.bases.values()].map((b) => ({ model_name: b.name, max_context_length: b.cfg.contextLength })) };
  }

  describeBase(): { name: string; config: GPTConfig; source: string } {
    const b = this.baseModel(BASE_MODEL_NAME);
    return { name: b.name, config: b.cfg, source: b.source };
  }

  // ------------------------------------------------------------------ sessions (./sessions.ts)

  createSession(tags: string[]): { session_id: string } {
    return sessions.createSession(this.st, tags);
  }

  heartbeat(sessionId: string): void {
    sessions.heartbeat(this.st, sessionId);
  }

  /** Sessions that heartbeated once and then stopped lose their models (as on SkyRL). */
  reapSessions(now = Date.now()): string[] {
    return sessions.reapSessions(this.st, now);
  }

  // ------------------------------------------------------------------ futures (./futures.ts)

  /** Long-polls a future: its record when settled, or null after `waitMs`. */
  retrieveFuture(id: string, waitMs = this.opts.longPollMs): Promise<FutureRecord | null> {
    return retrieveFuture(this.st, id, waitMs);
  }

  // ------------------------------------------------------------------ models (./training.ts)

  createModel(body: z.infer<typeof createModelSchema>): { request_id: string; model_id: string } {
    return training.createModel(this.st, body);
  }

  getInfo(modelId: string) {
    return training.getInfo(this.st, modelId);
  }

  unloadModel(modelId: string) {
    return training.unloadModel(this.st, modelId);
  }

  forwardBackward(modelId: string, seqId: number | undefined, input: z.infer<typeof fwdInputSchema>, forwardOnly: boolean) {
    return training.forwardBackward(this.st, modelId, seqId, input, forwardOnly);
  }

  optimStep(modelId: string, seqId: number | undefined, adam: z.infer<typeof adamParamsSchema>) {
    return training.optimStep(this.st, modelId, seqId, adam);
  }

  // ------------------------------------------------------------------ checkpoints (./checkpoints.ts)

  saveWeightsForSampler(body: z.infer<typeof saveWeightsForSamplerSchema>) {
    return checkpoints.saveWeightsForSampler(this.st, body);
  }

  saveWeights(body: z.infer<typeof saveWeightsSchema>) {
    return checkpoints.saveWeights(this.st, body);
  }

  loadWeights(body: z.infer<typeof loadWeightsSchema>) {
    return checkpoints.loadWeights(this.st, body);
  }

  /** Deletes a finished checkpoint (DELETE /training_runs/{model}/checkpoints/{kind}/{name}). */
  deleteCheckpoint(modelId: string, kind: "weights" | "sampler_weights", name: string): Promise<void> {
    return checkpoints.deleteCheckpoint(this.st, modelId, kind, name);
  }

  // ------------------------------------------------------------------ sampling (./sampler.ts)

  createSamplingSession(sessionId: string, baseModel: string | null | undefined, modelPath: string | null | undefined): Promise<{ sampling_session_id: string }> {
    return sampling.createSamplingSession(this.st, sessionId, baseModel, modelPath);
  }

  getSampler(id: string) {
    return sampling.getSampler(this.st, id);
  }

  /**
   * Resolves what to sample from: a sampling session id, a tinker:// path, a base model name,
   * or a published persistent sampler name (used by the OpenAI endpoint's `model`).
   */
  resolveSampler(ref: { samplingSessionId?: string | null; modelPath?: string | null; baseModel?: string | null; name?: string | null }): Promise<Sampler> {
    return sampling.resolveSampler(this.st, ref);
  }

  listSamplerNames(): string[] {
    return [...this.st.bases.keys(), ...this.st.publishedNames.keys()];
  }

  /** Samples `numSamples` continuations of one prompt. Row i uses seed + i. */
  sample(sampler: Sampler, req: SampleRequest): Promise<SampledSequence[]> {
    return sampling.sample(this.st, sampler, req);
  }

  /** Tinker asample: returns a future id (a sampling session's seq_id is an idempotency key). */
  asample(body: z.infer<typeof asampleSchema>): Promise<{ request_id: string }> {
    return sampling.asample(this.st, body);
  }
}
