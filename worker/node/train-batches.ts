/**
 * One forward_backward's work, cut up: padded micro-batches within a token budget, balanced shares for
 * the gradient workers, the per-token losses of a micro-batch (loss.ts on tensors), and computeShare —
 * the one loss-and-gradient computation the main thread and every gradient worker run.
 */
import * as tf from "@tensorflow/tfjs";
import { type LossOps, tokenLoss } from "./loss";
import { type GPTConfig, type ParamMap, paramShapes, targetLogprobs } from "./model";
import { type DatumOutput, type LossConfig, type LossFnName, type TrainDatum, TrainingInputError } from "./train-types";

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

export function addMetrics(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

/** Sums two gradient lists, disposing both. */
export function addGrads(acc: tf.Tensor[] | null, more: tf.Tensor[]): tf.Tensor[] {
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

/** Number of parameters by name, for diagnostics. */
export function paramNames(cfg: GPTConfig): string[] {
  return paramShapes(cfg).map(([n]) => n);
}
