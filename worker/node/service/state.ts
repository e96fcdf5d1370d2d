/**
 * The embedded node's state: its options, the records it keeps (sessions, models, futures, samplers,
 * sampling sessions) and the lookups every concern shares. The concerns are functions over one
 * NodeState (./sessions.ts, ./futures.ts, ./ordering.ts, ./training.ts, ./checkpoints.ts, ./sampler.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import type { GPTConfig, ParamMap, SampledSequence, SampleOptions } from "../model";
import { UserError } from "../protocol";
import type { Trainer } from "../train";

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

export type ResolvedNodeOptions = Required<Omit<NodeServiceOptions, "warmStartDir" | "baseConfig">> & Pick<NodeServiceOptions, "warmStartDir" | "baseConfig">;

type FutureState = "pending" | "done" | "failed";
export interface FutureRecord {
  id: string;
  type: string;
  state: FutureState;
  result?: unknown;
  error?: string;
  category?: "user" | "server" | "unknown";
  waiters: Set<() => void>;
  createdAt: number;
}

export interface Session {
  id: string;
  tags: string[];
  lastSeen: number;
  heartbeated: boolean;
  modelSeq: number;
  samplingSeq: number;
}

export interface ModelState {
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

export interface PendingSample {
  rows: Array<{ prompt: number[]; options: SampleOptions }>;
  resolve: (seqs: SampledSequence[]) => void;
  reject: (err: Error) => void;
}

export interface Sampler {
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
export interface SamplingSessionRecord {
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

export interface NodeState {
  readonly opts: ResolvedNodeOptions;
  readonly bases: Map<string, BaseModel>;
  readonly sessions: Map<string, Session>;
  readonly models: Map<string, ModelState>;
  readonly futures: Map<string, FutureRecord>;
  readonly samplers: Map<string, Sampler>;
  /** Persistent sampler weights by tinker path, and bare published names → path. */
  readonly persistentSamplers: Map<string, Sampler>;
  readonly publishedNames: Map<string, string>;
  readonly samplingSessions: Map<string, SamplingSessionRecord>;
  readonly stats: { sampledTokens: number; trainedTokens: number; optimSteps: number; startedAt: number };
}

export function newNodeState(opts: ResolvedNodeOptions): NodeState {
  return {
    opts,
    bases: new Map(),
    sessions: new Map(),
    models: new Map(),
    futures: new Map(),
    samplers: new Map(),
    persistentSamplers: new Map(),
    publishedNames: new Map(),
    samplingSessions: new Map(),
    stats: { sampledTokens: 0, trainedTokens: 0, optimSteps: 0, startedAt: Date.now() },
  };
}

export const newId = (prefix: string) => `${prefix}_${randomBytes(6).toString("hex")}`;
export const hashPayload = (x: unknown) => createHash("sha256").update(JSON.stringify(x)).digest("hex");

export function baseModel(st: NodeState, name: string): BaseModel {
  const b = st.bases.get(name);
  if (!b) throw new UserError(`unknown base model '${name}'; this node serves: ${[...st.bases.keys()].join(", ")}`, 404, "unknown_model");
  return b;
}

export function session(st: NodeState, id: string): Session {
  const s = st.sessions.get(id);
  if (!s) throw new UserError(`unknown session '${id}'`, 404, "unknown_session");
  return s;
}

export function model(st: NodeState, id: string): ModelState {
  const m = st.models.get(id);
  if (!m || m.unloaded) throw new UserError(`unknown model_id '${id}'`, 404, "unknown_model");
  return m;
}
