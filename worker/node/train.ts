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
 *
 * This file is the Trainer (a model's weights, gradients and AdamW state); micro-batching and the loss
 * computation are in train-batches.ts, the gradient worker threads in train-workers.ts, the shared
 * types in train-types.ts (all re-exported here).
 */
import * as tf from "@tensorflow/tfjs";
import { type GPTConfig, type ParamMap, cloneParams, disposeParams, paramShapes, tensorsFromValues, valuesFromTensors } from "./model";
import { type IndexedDatum, type ShareResult, addGrads, addMetrics, computeShare, paddedTokens, paramNames, planMicroBatches, splitShares } from "./train-batches";
import { type AdamParams, type DatumOutput, type ForwardBackwardResult, type LossConfig, type LossFnName, type OptimizerState, type TrainDatum, TrainingInputError } from "./train-types";
import { type GradWorkerReply, GradWorker, MAX_WORKER_FAILURES, defaultTrainThreads } from "./train-workers";

export * from "./train-types";
export { computeShare, disposeBatch, makeBatch, paddedTokens, paramNames, planMicroBatches, splitShares, tensorOps, tokenLosses, type Batch, type IndexedDatum, type ShareResult } from "./train-batches";
export { defaultTrainThreads, trainThreadsSchema, type GradWorkerInit, type GradWorkerReply, type GradWorkerRequest } from "./train-workers";

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

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

