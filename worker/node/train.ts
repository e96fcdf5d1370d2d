/**
 * Training for the tiny GPT: Tinker-style losses with gradient accumulation across
 * forward_backward calls, and AdamW in optim_step.
 *
 * Loss semantics follow hosted Tinker (tinker-protocol.md §3): every loss is a SUM over tokens;
 * aggregation (verl's token-mean etc.) is the client's job, done by scaling advantages / weights.
 * Positions line up with the model input: input position i predicts target_tokens[i].
 * The per-token loss is the one function in loss.ts (verl's PPO with dual clip, KL estimators,
 * entropy bonus), evaluated here on tensors:
 *
 *   cross_entropy        Σ −w·logp
 *   importance_sampling  Σ −ratio·A                       ratio = exp(clamp(logp − sampling_logprobs, ±20))
 *   ppo                  Σ max(−ratio·A, −clip(ratio, lo, hi)·A)
 *                        with dual clip (node extension, `dual_clip_threshold` c): for A<0, min(that, −c·A)
 *
 * Node extensions (loss_fn_config keys, ignored by hosted Tinker): `kl_coef` adds Σ w·kl(logp, ref)
 * against the frozen base weights, with the estimator `kl_type` (1 = k1, 2 = k2, 3 = low_var_kl, the
 * default; loss_fn_config values are numbers on every Tinker server), and `entropy_coef` subtracts
 * Σ w·H. The weight w of these regularisers is the `weights` input (default 1 on every position), so
 * a client that folds aggregation weights into the advantages sends the same weights here. The PG
 * term itself ignores `weights`, as on hosted Tinker.
 */
import os from "node:os";
import { Worker } from "node:worker_threads";
import * as tf from "@tensorflow/tfjs";
import { z } from "zod";
import { type KlType, type LossOps, tokenLoss } from "./loss";
import {
  type GPTConfig,
  type ParamMap,
  cloneParams,
  disposeParams,
  paramShapes,
  targetLogprobs,
  tensorsFromValues,
  valuesFromTensors,
} from "./model";

export type LossFnName = "cross_entropy" | "importance_sampling" | "ppo";
export const LOSS_FNS: LossFnName[] = ["cross_entropy", "importance_sampling", "ppo"];

export interface TrainDatum {
  /** Model input tokens (length N). */
  tokens: number[];
  /** Targets: target_tokens[i] is predicted from tokens[0..i]. Length N. */
  targets: number[];
  weights?: number[];
  /** Sampling logprobs of the targets (RL losses). */
  logprobs?: number[];
  advantages?: number[];
}

export interface LossConfig {
  clipLowThreshold: number;
  clipHighThreshold: number;
  dualClipThreshold: number | null;
  klCoef: number;
  klType: KlType;
  entropyCoef: number;
}

export const DEFAULT_LOSS_CONFIG: LossConfig = { clipLowThreshold: 0.8, clipHighThreshold: 1.2, dualClipThreshold: null, klCoef: 0, klType: "low_var_kl", entropyCoef: 0 };

/** loss.ts's algebra on tfjs tensors (differentiable). */
export const tensorOps: LossOps<tf.Tensor> = {
  add: (a, b) => tf.add(a, b),
  sub: (a, b) => tf.sub(a, b),
  mul: (a, b) => tf.mul(a, b),
  scale: (x, k) => tf.mul(x, k),
  shift: (x, k) => tf.add(x, k),
  neg: (x) => tf.neg(x),
  exp: (x) => tf.exp(x),
  square: (x) => tf.square(x),
  clip: (x, lo, hi) => tf.clipByValue(x, lo, hi),
  max: (a, b) => tf.maximum(a, b),
  min: (a, b) => tf.minimum(a, b),
  whereNegative: (c, a, b) => tf.where(tf.less(c, 0), a, b),
  greater: (a, b) => tf.cast(tf.greater(a, b), "float32"),
};

export interface DatumOutput {
  logprobs: number[];
  elementwise_loss: number[];
}

export interface ForwardBackwardResult {
  outputs: DatumOutput[];
  metrics: Record<string, number>;
}

export interface AdamParams {
  learningRate: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** 0 disables clipping. */
  gradClipNorm: number;
}

/** Raised for bad inputs (a user error: HTTP 400 / future category "user"). */
export class TrainingInputError extends Error {}

export interface OptimizerState {
  step: number;
  m: Map<string, Float32Array>;
  v: Map<string, Float32Array>;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Padded tensors for one micro-batch. */
export interface Batch {
  B: number;
  T: number;
  lengths: number[];
  tokens: tf.Tensor2D;
  targets: tf.Tensor2D;
  valid: tf.Tensor2D;
  weights: tf.Tensor2D;
  active: tf.Tensor2D;
  sampling: tf.Tensor2D;
  advantages: tf.Tensor2D;
}

export function makeBatch(datums: TrainDatum[], lossFn: LossFnName): Batch {
  const B = datums.length;
  const T = Math.max(...datums.map((d) => d.tokens.length));
  const tok = new Int32Array(B * T);
  const tgt = new Int32Array(B * T);
  const valid = new Float32Array(B * T);
  const w = new Float32Array(B * T);
  const act = new Float32Array(B * T);
  const s = new Float32Array(B * T);
  const a = new Float32Array(B * T);
  datums.forEach((d, b) => {
    for (let i = 0; i < d.tokens.length; i++) {
      const o = b * T + i;
      tok[o] = d.tokens[i];
      tgt[o] = d.targets[i];
      valid[o] = 1;
      w[o] = d.weights ? d.weights[i] : 1;
      s[o] = d.logprobs ? d.logprobs[i] : 0;
      a[o] = d.advantages ? d.advantages[i] : 0;
      act[o] = d.weights ? (d.weights[i] !== 0 ? 1 : 0) : lossFn === "cross_entropy" ? 1 : a[o] !== 0 ? 1 : 0;
    }
  });
  return {
    B,
    T,
    lengths: datums.map((d) => d.tokens.length),
    tokens: tf.tensor2d(tok, [B, T], "int32"),
    targets: tf.tensor2d(tgt, [B, T], "int32"),
    valid: tf.tensor2d(valid, [B, T]),
    weights: tf.tensor2d(w, [B, T]),
    active: tf.tensor2d(act, [B, T]),
    sampling: tf.tensor2d(s, [B, T]),
    advantages: tf.tensor2d(a, [B, T]),
  };
}

export function disposeBatch(b: Batch): void {
  for (const t of [b.tokens, b.targets, b.valid, b.weights, b.active, b.sampling, b.advantages]) t.dispose();
}

/**
 * Per-token loss [B,T] (zero on padding) and metric sums. Pure function of the parameters, so it
 * can be differentiated and checked by finite differences.
 */
export function tokenLosses(
  params: ParamMap,
  reference: ParamMap | null,
  cfg: GPTConfig,
  batch: Batch,
  lossFn: LossFnName,
  lc: LossConfig,
): { perToken: tf.Tensor2D; logprobs: tf.Tensor2D; metrics: Record<string, tf.Scalar> } {
  const { logprobs, entropy } = targetLogprobs(params, cfg, batch.tokens, batch.targets, true);
  if (lc.klCoef !== 0 && !reference) throw new TrainingInputError("kl_coef needs a reference model, and this model has none");
  // The reference weights are not differentiated arguments, so no gradient flows into them.
  const refLogprobs = lc.klCoef !== 0 ? targetLogprobs(reference!, cfg, batch.tokens, batch.targets).logprobs : undefined;
  const t = tokenLoss(
    tensorOps,
    { logprobs, oldLogprobs: batch.sampling, advantages: batch.advantages, weights: batch.weights, refLogprobs, entropy: entropy! },
    {
      kind: lossFn,
      clipLowThreshold: lc.clipLowThreshold,
      clipHighThreshold: lc.clipHighThreshold,
      dualClip: lc.dualClipThreshold,
      klCoef: lc.klCoef,
      klType: lc.klType,
      entropyCoef: lc.entropyCoef,
    },
  );
  const metrics: Record<string, tf.Scalar> = {};
  const activeSum = (x: tf.Tensor) => tf.sum(tf.mul(x, batch.active)) as tf.Scalar;
  const validSum = (x: tf.Tensor) => tf.sum(tf.mul(x, batch.valid)) as tf.Scalar;
  // Weighted parts (the client's aggregation): their sums are verl's pg_loss, kl_loss, entropy_loss.
  metrics["pg_loss:sum"] = validSum(t.pg);
  if (t.kl) metrics["kl_loss:sum"] = validSum(t.kl);
  if (t.entropy) metrics["entropy_loss:sum"] = validSum(t.entropy);
  // Unweighted diagnostics over the active (trained) tokens.
  if (t.ratio) metrics["ratio:sum"] = activeSum(t.ratio);
  if (t.clipped && lossFn === "ppo") metrics["clipped:sum"] = activeSum(t.clipped);
  if (t.dualClipped && lossFn === "ppo" && lc.dualClipThreshold !== null) metrics["dual_clipped:sum"] = activeSum(t.dualClipped);
  if (t.klEstimate) metrics["kl:sum"] = activeSum(t.klEstimate);
  metrics["entropy:sum"] = activeSum(entropy!);
  metrics["tokens:sum"] = tf.sum(batch.active) as tf.Scalar;
  return { perToken: tf.mul(t.total, batch.valid) as tf.Tensor2D, logprobs: tf.mul(logprobs, batch.valid) as tf.Tensor2D, metrics };
}

/** A datum with its position in the caller's list, so outputs go back in the caller's order. */
export interface IndexedDatum {
  index: number;
  datum: TrainDatum;
}

/**
 * Micro-batches of at most `tokenBudget` padded tokens over the datums sorted longest first, so the
 * rows of a batch have similar lengths and little compute goes to padding. The loss is a sum over
 * tokens, so the order of datums does not change it (only the float summation order).
 */
export function planMicroBatches(datums: TrainDatum[], tokenBudget: number): IndexedDatum[][] {
  const sorted = datums.map((datum, index) => ({ index, datum })).sort((a, b) => b.datum.tokens.length - a.datum.tokens.length || a.index - b.index);
  const out: IndexedDatum[][] = [];
  let cur: IndexedDatum[] = [];
  for (const d of sorted) {
    // Longest first: the batch's padded length is the length of its first row.
    const maxLen = cur.length ? cur[0].datum.tokens.length : d.datum.tokens.length;
    if (cur.length && maxLen * (cur.length + 1) > tokenBudget) {
      out.push(cur);
      cur = [];
    }
    cur.push(d);
  }
  if (cur.length) out.push(cur);
  return out;
}

export function paddedTokens(mb: IndexedDatum[]): number {
  return mb.length * Math.max(...mb.map((d) => d.datum.tokens.length));
}

/** Splits micro-batches into `n` shares with balanced padded-token counts (largest first onto the lightest share). */
export function splitShares(mbs: IndexedDatum[][], n: number): IndexedDatum[][][] {
  const shares: IndexedDatum[][][] = Array.from({ length: n }, () => []);
  const load = new Array<number>(n).fill(0);
  for (const mb of [...mbs].sort((a, b) => paddedTokens(b) - paddedTokens(a))) {
    const lightest = load.indexOf(Math.min(...load));
    shares[lightest].push(mb);
    load[lightest] += paddedTokens(mb);
  }
  return shares.filter((s) => s.length > 0);
}

/** The result of one share of a call: gradients summed over its micro-batches (null when forward-only). */
export interface ShareResult {
  grads: tf.Tensor[] | null;
  outputs: Array<[number, DatumOutput]>;
  metrics: Record<string, number>;
}

function addMetrics(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

/** Sums two gradient lists, disposing both. */
function addGrads(acc: tf.Tensor[] | null, more: tf.Tensor[]): tf.Tensor[] {
  if (acc === null) return more;
  const sum = acc.map((g, i) => tf.tidy(() => tf.add(g, more[i])));
  acc.forEach((g) => g.dispose());
  more.forEach((g) => g.dispose());
  return sum;
}

/**
 * Runs micro-batches one after another on this thread (the main thread or a gradient worker).
 * A non-finite loss throws TrainingInputError and leaves nothing allocated.
 */
export async function computeShare(
  params: ParamMap,
  reference: ParamMap | null,
  cfg: GPTConfig,
  mbs: IndexedDatum[][],
  lossFn: LossFnName,
  lc: LossConfig,
  forwardOnly: boolean,
): Promise<ShareResult> {
  const names = paramNames(cfg);
  const outputs: Array<[number, DatumOutput]> = [];
  const metrics: Record<string, number> = {};
  let shareGrads: tf.Tensor[] | null = null;
  try {
    for (const [k, mb] of mbs.entries()) {
      // One micro-batch at a time blocks this thread's event loop (tfjs on wasm is synchronous).
      if (k > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const batch = makeBatch(
        mb.map((d) => d.datum),
        lossFn,
      );
      try {
        let perTokenVals: Float32Array;
        let logprobVals: Float32Array;
        const metricVals: Record<string, number> = {};
        let lossValue: number;
        if (forwardOnly) {
          const r = tf.tidy(() => {
            const out = tokenLosses(params, reference, cfg, batch, lossFn, lc);
            return {
              per: out.perToken.dataSync() as Float32Array,
              lp: out.logprobs.dataSync() as Float32Array,
              metrics: Object.fromEntries(Object.entries(out.metrics).map(([k, t]) => [k, t.dataSync()[0]])),
            };
          });
          perTokenVals = r.per;
          logprobVals = r.lp;
          Object.assign(metricVals, r.metrics);
          lossValue = perTokenVals.reduce((a, b) => a + b, 0);
          if (!Number.isFinite(lossValue)) throw new TrainingInputError(`loss is not finite (${lossValue}); no gradient was computed`);
        } else {
          const grads = tf.tidy(() => {
            let per: tf.Tensor2D | null = null;
            let lp: tf.Tensor2D | null = null;
            let mets: Record<string, tf.Scalar> = {};
            const f = (...ps: tf.Tensor[]) => {
              const pm: ParamMap = {};
              names.forEach((n, i) => (pm[n] = ps[i]));
              const out = tokenLosses(pm, reference, cfg, batch, lossFn, lc);
              // valueAndGrads disposes intermediates; keep the outputs we read below.
              per = tf.keep(out.perToken);
              lp = tf.keep(out.logprobs);
              mets = Object.fromEntries(Object.entries(out.metrics).map(([k, t]) => [k, tf.keep(t)]));
              return tf.sum(out.perToken) as tf.Scalar;
            };
            const { value, grads } = tf.valueAndGrads(f)(names.map((n) => params[n]));
            perTokenVals = per!.dataSync() as Float32Array;
            logprobVals = lp!.dataSync() as Float32Array;
            for (const [k, t] of Object.entries(mets)) metricVals[k] = t.dataSync()[0];
            lossValue = value.dataSync()[0];
            for (const t of [per!, lp!, ...Object.values(mets)] as tf.Tensor[]) t.dispose();
            return grads.map((g) => tf.keep(g));
          });
          if (!Number.isFinite(lossValue!)) {
            grads.forEach((g) => g.dispose());
            throw new TrainingInputError(`loss is not finite (${lossValue!}); the step was refused and no gradient was accumulated`);
          }
          shareGrads = addGrads(shareGrads, grads);
        }
        mb.forEach(({ index, datum }, b) => {
          const n = datum.tokens.length;
          outputs.push([
            index,
            {
              logprobs: Array.from(logprobVals!.subarray(b * batch.T, b * batch.T + n)),
              elementwise_loss: Array.from(perTokenVals!.subarray(b * batch.T, b * batch.T + n)),
            },
          ]);
        });
        metrics["loss:sum"] = (metrics["loss:sum"] ?? 0) + lossValue!;
        addMetrics(metrics, metricVals);
      } finally {
        disposeBatch(batch);
      }
      await yieldToEventLoop();
    }
  } catch (err) {
    if (shareGrads) (shareGrads as tf.Tensor[]).forEach((g) => g.dispose());
    throw err;
  }
  return { grads: shareGrads, outputs, metrics };
}

// ---------------------------------------------------------------------------------------------
// Data-parallel forward_backward: the tfjs wasm backend is single-threaded in Node, so a call's
// micro-batches are shared between the main thread and gradient workers (grad-worker.ts), each
// running computeShare on its own copy of the weights.

/** workerData of a gradient worker. */
export interface GradWorkerInit {
  cfg: GPTConfig;
  /** tfjs backend of the main thread, so both sides compute the same way. */
  backend: string;
}

export interface GradWorkerRequest {
  id: number;
  /** Current weights in paramNames(cfg) order. */
  params: Float32Array[];
  /** The frozen KL reference, sent once per worker (the worker keeps it). */
  reference?: Float32Array[];
  microBatches: IndexedDatum[][];
  lossFn: LossFnName;
  lc: LossConfig;
  forwardOnly: boolean;
}

export type GradWorkerReply =
  | { id: number; kind: "ok"; grads: Float32Array[] | null; outputs: Array<[number, DatumOutput]>; metrics: Record<string, number> }
  /** A TrainingInputError (e.g. a non-finite loss): the whole call is refused, as on the main thread. */
  | { id: number; kind: "refused"; message: string }
  /** Anything else: the main thread computes the share itself. */
  | { id: number; kind: "error"; message: string };

/** ENVACE_NODE_TRAIN_THREADS as written in the environment (main.ts validates it with the rest of its env). */
export const trainThreadsSchema = z.coerce.number().int().min(1).max(64);

/** Threads per forward_backward: ENVACE_NODE_TRAIN_THREADS, else min(2, available cores). 1 disables the workers. */
export function defaultTrainThreads(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.ENVACE_NODE_TRAIN_THREADS;
  if (raw === undefined || raw === "") return Math.min(2, os.availableParallelism());
  const parsed = trainThreadsSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`ENVACE_NODE_TRAIN_THREADS must be an integer from 1 to 64, got '${raw}'`);
  return parsed.data;
}

/** A persistent worker thread that computes shares of forward_backward calls. */
class GradWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (r: GradWorkerReply) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  /** Set once the worker crashed, failed to start or was terminated; it takes no more requests. */
  failure: Error | null = null;
  hasReference = false;
  readonly exited: Promise<void>;

  constructor(init: GradWorkerInit) {
    const entry = new URL("./grad-worker.ts", import.meta.url).href;
    // Node 20 does not apply tsx's --import hooks to a worker's TypeScript entry (privatenumber/tsx#354)
    // and vitest workers have no TS loader at all, so the worker registers tsx before importing its entry.
    const tsxApi = import.meta.resolve("tsx/esm/api");
    const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
    this.worker = new Worker(bootstrap, { eval: true, workerData: init });
    // An idle worker must not keep the process alive; it is ref'd only while a request is pending.
    this.worker.unref();
    this.worker.on("message", (reply: GradWorkerReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.worker.unref();
      p.resolve(reply);
    });
    this.worker.on("error", (err) => this.fail(err instanceof Error ? err : new Error(String(err))));
    this.exited = new Promise((resolve) =>
      this.worker.once("exit", (code) => {
        this.fail(new Error(`gradient worker exited with code ${code}`));
        resolve();
      }),
    );
  }

  run(req: Omit<GradWorkerRequest, "id">): Promise<GradWorkerReply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ ...req, id } satisfies GradWorkerRequest);
    });
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  terminate(): Promise<void> {
    this.fail(new Error("gradient worker terminated"));
    void this.worker.terminate();
    return this.exited;
  }
}

const MAX_WORKER_FAILURES = 3;

export interface TrainerOptions {
  /** Threads per forward_backward call (default defaultTrainThreads()); 1 computes on the main thread only. */
  threads?: number;
  /**
   * Compute every share on gradient worker threads and none on the calling thread (the node's HTTP
   * server: its event loop keeps answering health checks, polls and samples while it trains). The
   * calling thread computes only a share whose worker failed, so no call is lost.
   */
  offMainThread?: boolean;
}

/** Training state of one model: weights, accumulated gradients, AdamW moments. */
export class Trainer {
  readonly cfg: GPTConfig;
  params: ParamMap;
  private readonly reference: ParamMap | null;
  private grads: ParamMap | null = null;
  private adamStep = 0;
  private m: ParamMap | null = null;
  private v: ParamMap | null = null;
  /** Padded tokens per micro-batch: bounds how long one chunk of work blocks the event loop. */
  tokenBudget = 1024;
  /** Threads per forward_backward call (main thread + threads−1 gradient workers). */
  readonly threads: number;
  /** Calls smaller than this (padded tokens) stay on the main thread: a worker round trip costs more than it saves. */
  minParallelTokens = 2048;
  /** Gradient workers, created on the first call that uses them and reused until dispose(). */
  private workers: GradWorker[] = [];
  private workerFailureLogged = false;
  /** Consecutive worker failures; after MAX_WORKER_FAILURES (e.g. a worker that cannot start) this trainer stops using workers. */
  private workerFailures = 0;
  /** Counters for diagnostics and tests. */
  readonly parallelStats = { parallelCalls: 0, workerShares: 0, workerFallbacks: 0, mainThreadShares: 0 };
  readonly offMainThread: boolean;

  constructor(cfg: GPTConfig, values: Map<string, Float32Array>, reference: ParamMap | null, opts: TrainerOptions = {}) {
    this.cfg = cfg;
    this.params = tensorsFromValues(cfg, values);
    this.reference = reference;
    this.offMainThread = opts.offMainThread ?? false;
    this.threads = opts.threads ?? defaultTrainThreads();
    if (!Number.isInteger(this.threads) || this.threads < 1) throw new Error(`Trainer threads must be a positive integer, got ${this.threads}`);
  }

  get optimizerSteps(): number {
    return this.adamStep;
  }

  private validate(d: TrainDatum, i: number, lossFn: LossFnName): void {
    const n = d.tokens.length;
    const V = this.cfg.vocabSize;
    if (n === 0) throw new TrainingInputError(`datum ${i}: model_input is empty`);
    if (n > this.cfg.contextLength) throw new TrainingInputError(`datum ${i}: ${n} tokens exceed the context length ${this.cfg.contextLength}`);
    const check = (name: string, arr: number[] | undefined, required: boolean) => {
      if (!arr) {
        if (required) throw new TrainingInputError(`datum ${i}: loss_fn_inputs.${name} is required for ${lossFn}`);
        return;
      }
      if (arr.length !== n) throw new TrainingInputError(`datum ${i}: loss_fn_inputs.${name} has ${arr.length} values, model_input has ${n} tokens`);
      if (arr.some((x) => !Number.isFinite(x))) throw new TrainingInputError(`datum ${i}: loss_fn_inputs.${name} contains a non-finite value`);
    };
    for (const [name, toks] of [["model_input", d.tokens], ["target_tokens", d.targets]] as const) {
      const bad = toks.find((t) => !Number.isInteger(t) || t < 0 || t >= V);
      if (bad !== undefined) throw new TrainingInputError(`datum ${i}: ${name} token ${bad} is outside the vocabulary 0..${V - 1}`);
    }
    check("target_tokens", d.targets, true);
    check("weights", d.weights, false);
    check("logprobs", d.logprobs, lossFn !== "cross_entropy");
    check("advantages", d.advantages, lossFn !== "cross_entropy");
  }

  /**
   * Computes the loss (and, unless forwardOnly, accumulates its gradient). A non-finite loss
   * refuses the whole call: nothing is accumulated and a TrainingInputError is thrown.
   * Outputs are in the caller's datum order.
   */
  async forwardBackward(datums: TrainDatum[], lossFn: LossFnName, lc: LossConfig, forwardOnly = false): Promise<ForwardBackwardResult> {
    datums.forEach((d, i) => this.validate(d, i, lossFn));
    const mbs = planMicroBatches(datums, this.tokenBudget);
    const totalPadded = mbs.reduce((n, mb) => n + paddedTokens(mb), 0);
    const workersUsable = this.workerFailures < MAX_WORKER_FAILURES;
    // Off the main thread: every share goes to a worker (one worker when threads is 1). Otherwise this
    // thread computes one share, and workers take the rest when the call is big enough to pay for them.
    const offMain = this.offMainThread && workersUsable && mbs.length > 0;
    const parallel = offMain || (this.threads > 1 && workersUsable && mbs.length >= 2 && totalPadded >= this.minParallelTokens);
    const shares = parallel ? splitShares(mbs, this.threads) : [mbs];
    const localShare = offMain ? [] : shares[0];
    const remoteShares = offMain ? shares : shares.slice(1);
    if (remoteShares.length) this.parallelStats.parallelCalls++;
    // Start the workers first so they compute while this thread computes its own share. The
    // replies never reject (a failure becomes kind "error"), so none goes unhandled meanwhile.
    const remote = remoteShares.map((share, i) =>
      this.runRemote(i, share, lossFn, lc, forwardOnly).catch((err: Error): GradWorkerReply => ({ id: -1, kind: "error", message: err.message })),
    );
    const results: ShareResult[] = [];
    try {
      try {
        if (localShare.length > 0) {
          this.parallelStats.mainThreadShares++;
          results.push(await computeShare(this.params, this.reference, this.cfg, localShare, lossFn, lc, forwardOnly));
        }
      } finally {
        // Even when this share is refused, let the workers finish so the next call finds them idle.
        await Promise.allSettled(remote);
      }
      for (let i = 0; i < remote.length; i++) {
        const reply = await remote[i];
        if (reply.kind === "refused") throw new TrainingInputError(reply.message);
        if (reply.kind === "ok") {
          this.workerFailures = 0;
          const shapes = paramShapes(this.cfg);
          results.push({ grads: reply.grads ? reply.grads.map((g, j) => tf.tensor(g, shapes[j][1], "float32")) : null, outputs: reply.outputs, metrics: reply.metrics });
        } else {
          // Never lose a call: compute the worker's share here.
          this.noteWorkerFailure(reply.message);
          this.parallelStats.mainThreadShares++;
          results.push(await computeShare(this.params, this.reference, this.cfg, remoteShares[i], lossFn, lc, forwardOnly));
        }
      }
    } catch (err) {
      for (const r of results) r.grads?.forEach((g) => g.dispose());
      throw err;
    }
    if (results.length === 0) results.push({ grads: null, outputs: [], metrics: {} });

    const outputs: DatumOutput[] = new Array(datums.length);
    const metrics: Record<string, number> = {};
    let callGrads: tf.Tensor[] | null = null;
    for (const r of results) {
      for (const [index, out] of r.outputs) outputs[index] = out;
      addMetrics(metrics, r.metrics);
      if (r.grads) callGrads = addGrads(callGrads, r.grads);
    }
    if (callGrads) {
      const cg: tf.Tensor[] = callGrads;
      const names = paramNames(this.cfg);
      const acc = this.grads;
      this.grads = acc === null ? Object.fromEntries(names.map((n, i) => [n, cg[i]])) : Object.fromEntries(names.map((n, i) => [n, addGrads([acc[n]], [cg[i]])[0]]));
    }
    return { outputs, metrics };
  }

  /** Sends one share to gradient worker `i` (started on first use; restarted after a crash). */
  private async runRemote(i: number, share: IndexedDatum[][], lossFn: LossFnName, lc: LossConfig, forwardOnly: boolean): Promise<GradWorkerReply> {
    if (!this.workers[i] || this.workers[i].failure) this.workers[i] = new GradWorker({ cfg: this.cfg, backend: tf.getBackend() });
    const worker = this.workers[i];
    const names = paramNames(this.cfg);
    // dataSync() may return the backend's own buffer; postMessage copies it, so this thread keeps its weights.
    const params = names.map((n) => this.params[n].dataSync() as Float32Array);
    let reference: Float32Array[] | undefined;
    if (lc.klCoef !== 0 && this.reference && !worker.hasReference) {
      reference = names.map((n) => this.reference![n].dataSync() as Float32Array);
      // Messages arrive in order, so later requests find the reference cached there.
      worker.hasReference = true;
    }
    this.parallelStats.workerShares++;
    return worker.run({ params, reference, microBatches: share, lossFn, lc, forwardOnly });
  }

  private noteWorkerFailure(message: string): void {
    this.parallelStats.workerFallbacks++;
    this.workerFailures++;
    if (this.workerFailureLogged) return;
    this.workerFailureLogged = true;
    console.warn(`[node] gradient worker failed (${message}); computing its share on the main thread`);
  }

  /** Global L2 norm of the accumulated gradient (0 when none). */
  gradNorm(): number {
    if (!this.grads) return 0;
    const g = this.grads;
    return tf.tidy(() => Math.sqrt(tf.addN(Object.values(g).map((t) => tf.sum(tf.square(t)))).dataSync()[0]));
  }

  /** AdamW (decoupled weight decay on matrices only; LN gains and biases are not decayed). */
  optimStep(hp: AdamParams): Record<string, number> {
    if (!this.grads) return { grad_norm: 0, learning_rate: hp.learningRate, step: this.adamStep, skipped: 1 };
    const norm = this.gradNorm();
    if (!Number.isFinite(norm)) {
      this.zeroGrad();
      throw new TrainingInputError(`gradient norm is not finite (${norm}); the step was refused and the weights are unchanged`);
    }
    const scale = hp.gradClipNorm > 0 && norm > hp.gradClipNorm ? hp.gradClipNorm / (norm + 1e-6) : 1;
    if (!this.m || !this.v) {
      this.m = {};
      this.v = {};
      for (const [n, p] of Object.entries(this.params)) (this.m[n] = tf.zerosLike(p), this.v[n] = tf.zerosLike(p));
    }
    this.adamStep += 1;
    const t = this.adamStep;
    const bc1 = 1 - Math.pow(hp.beta1, t);
    const bc2 = 1 - Math.pow(hp.beta2, t);
    const g = this.grads;
    const m = this.m;
    const v = this.v;
    for (const n of Object.keys(this.params)) {
      const [p2, m2, v2] = tf.tidy(() => {
        const grad = tf.mul(g[n], scale);
        const mNew = tf.add(tf.mul(m[n], hp.beta1), tf.mul(grad, 1 - hp.beta1));
        const vNew = tf.add(tf.mul(v[n], hp.beta2), tf.mul(tf.square(grad), 1 - hp.beta2));
        let p = this.params[n];
        if (hp.weightDecay > 0 && p.rank === 2) p = tf.mul(p, 1 - hp.learningRate * hp.weightDecay);
        const update = tf.div(tf.div(mNew, bc1), tf.add(tf.sqrt(tf.div(vNew, bc2)), hp.eps));
        return [tf.sub(p, tf.mul(update, hp.learningRate)), mNew, vNew];
      });
      this.params[n].dispose();
      m[n].dispose();
      v[n].dispose();
      this.params[n] = p2;
      m[n] = m2;
      v[n] = v2;
    }
    this.zeroGrad();
    return { grad_norm: norm, grad_scale: scale, learning_rate: hp.learningRate, step: t };
  }

  /** Accumulated gradient values (null when none), for tests and diagnostics. */
  gradValues(): Map<string, Float32Array> | null {
    return this.grads ? valuesFromTensors(this.cfg, this.grads) : null;
  }

  zeroGrad(): void {
    if (this.grads) disposeParams(this.grads);
    this.grads = null;
  }

  /** An immutable copy of the current weights (for a sampler). */
  snapshot(): ParamMap {
    return cloneParams(this.params);
  }

  weightValues(): Map<string, Float32Array> {
    return valuesFromTensors(this.cfg, this.params);
  }

  optimizerState(): OptimizerState | null {
    if (!this.m || !this.v) return null;
    return { step: this.adamStep, m: valuesFromTensors(this.cfg, this.m), v: valuesFromTensors(this.cfg, this.v) };
  }

  /** Replace weights (and optionally the optimizer state); clears accumulated gradients. */
  load(values: Map<string, Float32Array>, optimizer: OptimizerState | null | undefined): void {
    const next = tensorsFromValues(this.cfg, values);
    disposeParams(this.params);
    this.params = next;
    this.zeroGrad();
    if (optimizer !== undefined) {
      if (this.m) disposeParams(this.m);
      if (this.v) disposeParams(this.v);
      this.m = optimizer ? tensorsFromValues(this.cfg, optimizer.m) : null;
      this.v = optimizer ? tensorsFromValues(this.cfg, optimizer.v) : null;
      this.adamStep = optimizer ? optimizer.step : 0;
    }
  }

  /** Frees the tensors now and terminates the gradient workers; resolves once their threads have exited. */
  dispose(): Promise<void> {
    disposeParams(this.params);
    this.zeroGrad();
    if (this.m) disposeParams(this.m);
    if (this.v) disposeParams(this.v);
    this.m = this.v = null;
    const exited = this.workers.map((w) => w.terminate());
    this.workers = [];
    return Promise.all(exited).then(() => undefined);
  }
}

/** Number of parameters by name, for diagnostics. */
export function paramNames(cfg: GPTConfig): string[] {
  return paramShapes(cfg).map(([n]) => n);
}
