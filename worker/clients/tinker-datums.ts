/**
 * TrainingDatums → Tinker Datums (see tinker-policy.ts's header): one datum per sequence over
 * prompt+response, the run's loss aggregation folded into per-token weights and advantages as the
 * server's loss semantics need (loss-semantics.ts), zero-advantage datums dropped, short datums packed,
 * all in pooled typed arrays, built with pauses for the event loop.
 */
import type { LossConfig, TrainingDatum } from "../engine/io";
import { type Datum, tokensInput } from "../../lib/clients/tinker-client";
import type { LossAgg } from "../../contracts/run-config";
import { type ServerLossSemantics, applyServerReduction, uniformAggregationWeights } from "./loss-semantics";

export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * One update's rows → the datums sent to the server, exactly: aggregation weights over all the rows
 * (buildDatums), then two savings that rely on the loss being a token sum — without KL/entropy
 * terms a datum whose advantages are all zero has zero gradient, and a datum that is a prefix of
 * another rides along inside it — then the server's reduction undone (applyServerReduction).
 */
export function prepareDatums(data: TrainingDatum[], loss: LossConfig, sem: ServerLossSemantics): { datums: Datum[]; responseTokens: number } {
  return runSync(prepareDatumsSteps(data, loss, sem));
}

/** prepareDatums with pauses for the event loop (what forwardBackward uses). */
export function prepareDatumsAsync(data: TrainingDatum[], loss: LossConfig, sem: ServerLossSemantics): Promise<{ datums: Datum[]; responseTokens: number }> {
  return runYielding(prepareDatumsSteps(data, loss, sem));
}

function* prepareDatumsSteps(data: TrainingDatum[], loss: LossConfig, sem: ServerLossSemantics): Generator<void, { datums: Datum[]; responseTokens: number }> {
  const built = yield* buildDatumsSteps(data, { lossAgg: loss.lossAgg, weights: sem.weights });
  const regularised = (loss.klCoef !== 0 && sem.kl) || (loss.entropyCoef !== 0 && sem.entropy);
  const packed = yield* packDatumsSteps(regularised ? built.datums : dropZeroAdvantage(built.datums));
  return { datums: applyServerReduction(packed, sem), responseTokens: built.responseTokens };
}

/** loss_fn_config codes of the embedded node's `kl_type` extension. */
const KL_TYPE_CODES = { k1: 1, k2: 2, low_var_kl: 3 } as const;

/** The loss_fn_config a server accepts for this loss (SkyRL refuses unknown keys). */
export function lossFnConfig(loss: LossConfig, sem: ServerLossSemantics): Record<string, number> | undefined {
  const config: Record<string, number> = {};
  if (loss.loss === "ppo") {
    config.clip_low_threshold = 1 - loss.clipLow;
    config.clip_high_threshold = 1 + loss.clipHigh;
    if (sem.dualClip) config.dual_clip_threshold = loss.dualClip;
  }
  if (loss.klCoef !== 0 && sem.kl) {
    config.kl_coef = loss.klCoef;
    if (sem.klTypes) config.kl_type = KL_TYPE_CODES[loss.klType];
  }
  if (loss.entropyCoef !== 0 && sem.entropy) config.entropy_coef = loss.entropyCoef;
  return Object.keys(config).length > 0 ? config : undefined;
}

/**
 * TrainingDatum[] (one update's rows) → Tinker datums. The aggregation weights w of `lossAgg` are
 * computed over all the rows (mask = every response token) and folded into the advantages (A·w);
 * `weights` carries w ("aggregation"), the response mask ("mask") or is left out ("none").
 * `responseTokens` counts the response tokens of the rows.
 */
export function buildDatums(data: TrainingDatum[], opts: { lossAgg: LossAgg; weights: ServerLossSemantics["weights"] }): { datums: Datum[]; responseTokens: number } {
  return runSync(buildDatumsSteps(data, opts));
}

/**
 * Long CPU work written once as a generator: each `yield` marks a point where the event loop may run.
 * runSync ignores them; runYielding lets timers and I/O (heartbeats, HTTP) in at each one.
 */
function runSync<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
async function runYielding<T>(steps: Generator<void, T>): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await yieldToLoop();
  }
}

/** A few ms of work between pauses. */
const YIELD_EVERY_POSITIONS = 100_000;

function* buildDatumsSteps(
  data: TrainingDatum[],
  opts: { lossAgg: LossAgg; weights: ServerLossSemantics["weights"] },
): Generator<void, { datums: Datum[]; responseTokens: number }> {
  let responseTokens = 0;
  let seqTotal = 0;
  for (let i = 0; i < data.length; i++) {
    const d = data[i];
    const n = d.responseTokens.length;
    if (d.logprobs.length !== n || d.advantages.length !== n)
      throw new Error(`training datum ${i}: ${n} response tokens but ${d.logprobs.length} logprobs and ${d.advantages.length} advantages`);
    if (d.promptTokens.length === 0) throw new Error(`training datum ${i}: empty prompt`);
    responseTokens += n;
    seqTotal += d.promptTokens.length + n;
  }
  // Every response token counts: one aggregation weight per row (bit-equal to aggregationWeights' entries).
  const w = uniformAggregationWeights(
    data.map((d) => d.responseTokens.length),
    opts.lossAgg,
  );
  // Typed arrays in the wire's own types (int32 ids, float32 values: the protobuf wire carries float32,
  // as the SDK sends it), one buffer per kind for the whole call and each datum a view into it: a
  // paper-scale step has millions of positions, which plain arrays, spreads and thousands of
  // allocations turn into seconds and GC pauses; float64 buffers would double the memory touched
  // (bench/pack.ts).
  const seqPool = new Int32Array(seqTotal);
  const logprobPool = new Float32Array(seqTotal);
  const advantagePool = new Float32Array(seqTotal);
  const weightPool = opts.weights === "none" ? null : new Float32Array(seqTotal);
  const datums: Datum[] = [];
  let positions = 0;
  let at = 0;
  for (let i = 0; i < data.length; i++) {
    const d = data[i];
    const n = d.responseTokens.length;
    const p = d.promptTokens.length;
    const pad = p - 1; // input positions that predict prompt tokens
    const len = p + n - 1; // model_input = seq[0..len-1], target_tokens = seq[1..len] (views, no copy)
    const seq = seqPool.subarray(at, at + p + n);
    seq.set(d.promptTokens);
    seq.set(d.responseTokens, p);
    const logprobs = logprobPool.subarray(at, at + len);
    logprobs.set(d.logprobs, pad);
    const advantages = advantagePool.subarray(at, at + len);
    const wi = w[i];
    for (let j = 0; j < n; j++) advantages[pad + j] = d.advantages[j] * wi;
    const inputs: Datum["loss_fn_inputs"] = {
      target_tokens: { data: seq.subarray(1), dtype: "int64" },
      logprobs: { data: logprobs, dtype: "float32" },
      advantages: { data: advantages, dtype: "float32" },
    };
    if (weightPool) {
      const weights = weightPool.subarray(at, at + len);
      weights.fill(opts.weights === "aggregation" ? wi : 1, pad);
      inputs.weights = { data: weights, dtype: "float32" };
    }
    datums.push({ model_input: tokensInput(seq.subarray(0, len)), loss_fn_inputs: inputs });
    at += p + n;
    positions += len;
    if (positions > YIELD_EVERY_POSITIONS) {
      positions = 0;
      yield;
    }
  }
  return { datums, responseTokens };
}

/** A position that counts: a non-zero advantage or weight. */
export const isActive = (d: Datum, i: number) => d.loss_fn_inputs.advantages.data[i] !== 0 || (d.loss_fn_inputs.weights?.data[i] ?? 0) !== 0;

/**
 * Drops datums with no non-zero advantage, unless that would drop all of them. Exact for the PG
 * losses when no KL / entropy term is on (their `weights` then scale nothing): such a datum adds
 * nothing to the gradient. Loss metrics (ratio, clip fraction) are then means over the trained tokens.
 */
export function dropZeroAdvantage(datums: Datum[]): Datum[] {
  const hasAdvantage = (d: Datum) => {
    const a = d.loss_fn_inputs.advantages.data;
    for (let i = a.length - 1; i >= 0; i--) if (a[i] !== 0) return true; // response positions are at the end
    return false;
  };
  const kept = datums.filter(hasAdvantage);
  return kept.length > 0 ? kept : datums;
}

/**
 * Folds each datum whose full sequence (inputs + last target) is a prefix of a longer datum's into
 * that datum, when their loss positions do not overlap. With causal attention the logits of the
 * shared positions are identical, and the loss is a token sum, so the gradient is unchanged; a
 * multi-turn conversation's act turns usually collapse into one sequence. The inputs are not mutated:
 * a datum that receives folds is copied first; the others are returned as they are.
 *
 * Prefix tests compare prefix hashes first (O(1) per candidate) and tokens only on a hash match, so a
 * paper-scale step (≈1,300 datums of thousands of tokens sharing long system prompts) packs in tens
 * of milliseconds instead of seconds; the work pauses for the event loop every ~250k positions.
 */
export function packDatums(datums: Datum[]): Datum[] {
  return runSync(packDatumsSteps(datums));
}

/** packDatums with a pause for the event loop every few hundred thousand positions. */
export function packDatumsAsync(datums: Datum[]): Promise<Datum[]> {
  return runYielding(packDatumsSteps(datums));
}

function* packDatumsSteps(datums: Datum[]): Generator<void, Datum[]> {
  const items = datums
    .map((d) => {
      const tokens = d.model_input.chunks.length === 1 ? d.model_input.chunks[0].tokens : Int32Array.from(d.model_input.chunks.flatMap((c) => Array.from(c.tokens)));
      const targets = d.loss_fn_inputs.target_tokens.data;
      return { d, tokens, last: targets[targets.length - 1], len: tokens.length + 1, row: 0, copied: false };
    })
    .sort((a, b) => b.len - a.len);
  type Item = (typeof items)[number];
  // Prefix hashes, only where they are compared: hash[row][col] covers the first lengths[col] tokens of
  // datum `row`'s full sequence, for every length some datum has (a datum can only be a prefix of a
  // longer one at its own length). A hash match is a candidate; tokens are compared before folding.
  const lengths = [...new Set(items.map((x) => x.len))].sort((a, b) => a - b);
  const colOf = new Map(lengths.map((l, c) => [l, c]));
  const C = lengths.length;
  const hash = new Int32Array(items.length * C);
  let positions = 0;
  for (let r = 0; r < items.length; r++) {
    const x = items[r];
    x.row = r;
    let h = 0;
    let c = 0;
    for (let k = 0; k < x.len && c < C; k++) {
      h = (Math.imul(h, 0x01000193) ^ (k < x.tokens.length ? x.tokens[k] : x.last)) | 0;
      if (k + 1 === lengths[c]) hash[r * C + c++] = h;
    }
    positions += x.len;
    if (positions > YIELD_EVERY_POSITIONS) {
      positions = 0;
      yield;
    }
  }
  /** `c` = item's column in `hash`, looked up once per item, not per candidate. */
  const isPrefixOf = (item: Item, k: Item, c: number, h: number) => {
    if (k.len < item.len) return false;
    if (hash[k.row * C + c] !== h) return false;
    const a = item.tokens;
    const b = k.tokens;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return (item.len - 1 < b.length ? b[item.len - 1] : k.last) === item.last;
  };
  /** Positions where a datum trains: a non-zero advantage or weight. */
  const active = (d: Datum) => ({ adv: d.loss_fn_inputs.advantages.data, w: d.loss_fn_inputs.weights?.data ?? null });
  const disjoint = (item: Item, k: Item) => {
    const x = active(item.d);
    const y = active(k.d);
    const n = item.len - 1;
    for (let i = 0; i < n; i++) {
      const ix = x.adv[i] !== 0 || (x.w !== null && x.w[i] !== 0);
      if (ix && (y.adv[i] !== 0 || (y.w !== null && y.w[i] !== 0))) return false;
    }
    return true;
  };
  const kept: Item[] = [];
  for (const item of items) {
    positions += item.len;
    if (positions > YIELD_EVERY_POSITIONS) {
      positions = 0;
      yield;
    }
    const c = colOf.get(item.len)!;
    const h = hash[item.row * C + c];
    const host = kept.find((k) => isPrefixOf(item, k, c, h) && disjoint(item, k));
    if (!host) {
      kept.push(item);
      continue;
    }
    if (!host.copied) {
      const li = host.d.loss_fn_inputs;
      const copy = (t: Datum["loss_fn_inputs"][string]) => ({ ...t, data: t.data.slice() });
      host.d = {
        model_input: host.d.model_input,
        loss_fn_inputs: { ...li, advantages: copy(li.advantages), logprobs: copy(li.logprobs), ...(li.weights ? { weights: copy(li.weights) } : {}) },
      };
      host.copied = true;
    }
    const n = item.len - 1; // loss positions of the shorter datum: 0..n-1
    const from = item.d.loss_fn_inputs;
    const into = host.d.loss_fn_inputs;
    const x = active(item.d);
    for (let i = 0; i < n; i++) {
      if (x.adv[i] === 0 && (x.w === null || x.w[i] === 0)) continue;
      into.advantages.data[i] = from.advantages.data[i];
      into.logprobs.data[i] = from.logprobs.data[i];
      if (into.weights && from.weights) into.weights.data[i] = from.weights.data[i];
    }
  }
  return kept.map((k) => k.d);
}

