/**
 * A tiny decoder-only transformer (GPT) on @tensorflow/tfjs, nanoGPT style, in one file.
 *
 * token + position embeddings → nLayer pre-norm blocks (causal self-attention, GELU MLP) → final
 * layer norm → output head tied to the token embedding. Token embedding uses a one-hot matmul
 * because the wasm backend has no gradient for tf.gather.
 *
 * Sampling keeps a KV cache per layer and decodes several rows at once (prompts of different
 * lengths are left-padded in the cache and masked). The per-token logprob it returns is the log
 * probability of the chosen token under the distribution actually sampled from (after
 * temperature and top-k/top-p renormalisation), i.e. the sampling policy, as Tinker returns it.
 * The learner computes logprobs at temperature 1 without truncation, so with temperature 1 and
 * top_p 1 an on-policy ratio is exactly exp(0) = 1 up to float rounding. Greedy decoding
 * (temperature 0) is a degenerate distribution; there we report the temperature-1 logprob.
 */
import * as tf from "@tensorflow/tfjs";
import "@tensorflow/tfjs-backend-wasm";
import { mulberry32 } from "../../lib/random";

// ---------------------------------------------------------------------------------------------
// Backend

let backendReady: Promise<string> | null = null;

/** Select the tfjs backend once per process ('wasm' by default, NODE_TF_BACKEND to override). */
export function ensureBackend(name: string = process.env.NODE_TF_BACKEND ?? "wasm"): Promise<string> {
  if (!backendReady) {
    backendReady = (async () => {
      const ok = await tf.setBackend(name);
      if (!ok) throw new Error(`tfjs backend '${name}' could not be initialised`);
      await tf.ready();
      return tf.getBackend();
    })();
  }
  return backendReady;
}

/** Switch backend explicitly (benchmarks compare wasm against the pure-JS 'cpu' backend). */
export async function switchBackend(name: string): Promise<void> {
  const ok = await tf.setBackend(name);
  if (!ok) throw new Error(`tfjs backend '${name}' could not be initialised`);
  await tf.ready();
  backendReady = Promise.resolve(name);
}

// ---------------------------------------------------------------------------------------------
// Config and parameters

export interface GPTConfig {
  vocabSize: number;
  contextLength: number;
  nLayer: number;
  nHead: number;
  dModel: number;
}

/** Default embedded model: ≈0.6M parameters, context 1024. */
export const DEFAULT_CONFIG: GPTConfig = { vocabSize: 264, contextLength: 1024, nLayer: 2, nHead: 4, dModel: 128 };

export function validateConfig(cfg: GPTConfig): void {
  for (const [k, v] of Object.entries(cfg)) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`GPTConfig.${k} must be a positive integer, got ${v}`);
  }
  if (cfg.dModel % cfg.nHead !== 0) throw new Error(`dModel (${cfg.dModel}) must be divisible by nHead (${cfg.nHead})`);
}

export type ParamMap = Record<string, tf.Tensor>;

/** Parameter names and shapes in a fixed order (the order of checkpoints). */
export function paramShapes(cfg: GPTConfig): Array<[string, number[]]> {
  const d = cfg.dModel;
  const shapes: Array<[string, number[]]> = [
    ["wte", [cfg.vocabSize, d]],
    ["wpe", [cfg.contextLength, d]],
  ];
  for (let i = 0; i < cfg.nLayer; i++) {
    shapes.push(
      [`h${i}.ln1.g`, [d]],
      [`h${i}.ln1.b`, [d]],
      [`h${i}.attn.wqkv`, [d, 3 * d]],
      [`h${i}.attn.bqkv`, [3 * d]],
      [`h${i}.attn.wo`, [d, d]],
      [`h${i}.attn.bo`, [d]],
      [`h${i}.ln2.g`, [d]],
      [`h${i}.ln2.b`, [d]],
      [`h${i}.mlp.wfc`, [d, 4 * d]],
      [`h${i}.mlp.bfc`, [4 * d]],
      [`h${i}.mlp.wproj`, [4 * d, d]],
      [`h${i}.mlp.bproj`, [d]],
    );
  }
  shapes.push(["lnf.g", [d]], ["lnf.b", [d]]);
  return shapes;
}

export function countParams(cfg: GPTConfig): number {
  return paramShapes(cfg).reduce((n, [, s]) => n + s.reduce((a, b) => a * b, 1), 0);
}

/** Small deterministic PRNG (lib/random's mulberry32) so initialisation and sampling do not depend on the backend. */
export function makeRng(seed: number): () => number {
  return mulberry32(seed >>> 0 || 0x9e3779b9);
}

function gaussian(rng: () => number): number {
  const u = Math.max(rng(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** GPT-2 initialisation: N(0, 0.02), residual projections scaled by 1/sqrt(2·nLayer), LN gain 1. */
export function initParamValues(cfg: GPTConfig, seed: number): Map<string, Float32Array> {
  validateConfig(cfg);
  const rng = makeRng(seed);
  const out = new Map<string, Float32Array>();
  const residualStd = 0.02 / Math.sqrt(2 * cfg.nLayer);
  for (const [name, shape] of paramShapes(cfg)) {
    const n = shape.reduce((a, b) => a * b, 1);
    const v = new Float32Array(n);
    if (name.endsWith(".g")) v.fill(1);
    else if (shape.length === 2) {
      const std = name.endsWith("attn.wo") || name.endsWith("mlp.wproj") ? residualStd : 0.02;
      for (let i = 0; i < n; i++) v[i] = gaussian(rng) * std;
    }
    out.set(name, v);
  }
  return out;
}

export function tensorsFromValues(cfg: GPTConfig, values: Map<string, Float32Array>): ParamMap {
  const params: ParamMap = {};
  for (const [name, shape] of paramShapes(cfg)) {
    const v = values.get(name);
    if (!v) throw new Error(`missing parameter ${name}`);
    if (v.length !== shape.reduce((a, b) => a * b, 1)) throw new Error(`parameter ${name} has ${v.length} values, expected shape ${shape}`);
    params[name] = tf.tensor(v, shape, "float32");
  }
  return params;
}

export function valuesFromTensors(cfg: GPTConfig, params: ParamMap): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  for (const [name] of paramShapes(cfg)) out.set(name, params[name].dataSync() as Float32Array);
  return out;
}

export function cloneParams(params: ParamMap): ParamMap {
  const out: ParamMap = {};
  for (const [k, t] of Object.entries(params)) out[k] = tf.clone(t);
  return out;
}

export function disposeParams(params: ParamMap): void {
  for (const t of Object.values(params)) t.dispose();
}

// ---------------------------------------------------------------------------------------------
// Forward pass

const maskCache = new Map<number, tf.Tensor2D>();

/** Additive causal mask [T,T]: 0 on and below the diagonal, -1e9 above. */
function causalBias(T: number): tf.Tensor2D {
  let m = maskCache.get(T);
  if (!m) {
    const v = new Float32Array(T * T);
    for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) v[i * T + j] = -1e9;
    m = tf.keep(tf.tensor2d(v, [T, T]));
    maskCache.set(T, m);
  }
  return m;
}

function layerNorm(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const mean = tf.mean(x, -1, true);
  const xc = tf.sub(x, mean);
  const variance = tf.mean(tf.square(xc), -1, true);
  return tf.add(tf.mul(tf.mul(xc, tf.rsqrt(tf.add(variance, 1e-5))), g), b);
}

function gelu(x: tf.Tensor): tf.Tensor {
  // tanh approximation (GPT-2)
  const inner = tf.mul(tf.add(x, tf.mul(tf.pow(x, 3), 0.044715)), Math.sqrt(2 / Math.PI));
  return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(inner), 1));
}

/** [N,d] → [B,H,T,dh] */
function splitHeads(x: tf.Tensor, B: number, T: number, H: number): tf.Tensor4D {
  const dh = x.shape[x.shape.length - 1] / H;
  return tf.transpose(tf.reshape(x, [B, T, H, dh]), [0, 2, 1, 3]) as tf.Tensor4D;
}

/** [B,H,T,dh] → [B*T,d] */
function mergeHeads(x: tf.Tensor, B: number, T: number): tf.Tensor2D {
  const [, H, , dh] = x.shape;
  return tf.reshape(tf.transpose(x, [0, 2, 1, 3]), [B * T, H * dh]) as tf.Tensor2D;
}

export interface LayerKV {
  k: tf.Tensor4D; // [B,H,T,dh]
  v: tf.Tensor4D;
}

/**
 * Full-sequence forward pass. tokens: [B,T] int32 (T ≤ contextLength). Returns logits [B*T,V].
 * When `kvOut` is given, each layer's keys and values are pushed into it (for prefill).
 */
export function forwardLogits(params: ParamMap, cfg: GPTConfig, tokens: tf.Tensor2D, kvOut?: LayerKV[]): tf.Tensor2D {
  const [B, T] = tokens.shape;
  if (T > cfg.contextLength) throw new Error(`sequence of ${T} tokens exceeds the context length ${cfg.contextLength}`);
  const d = cfg.dModel;
  const H = cfg.nHead;
  const oneHot = tf.oneHot(tf.reshape(tokens, [B * T]), cfg.vocabSize).toFloat();
  const tokEmb = tf.reshape(tf.matMul(oneHot, params.wte), [B, T, d]);
  const posEmb = tf.slice(params.wpe, [0, 0], [T, d]);
  let x: tf.Tensor = tf.reshape(tf.add(tokEmb, posEmb), [B * T, d]);
  const bias = causalBias(T);
  const scale = 1 / Math.sqrt(d / H);
  for (let i = 0; i < cfg.nLayer; i++) {
    const p = (n: string) => params[`h${i}.${n}`];
    const h1 = layerNorm(x, p("ln1.g"), p("ln1.b"));
    const qkv = tf.add(tf.matMul(h1, p("attn.wqkv")), p("attn.bqkv"));
    const [q, k, v] = tf.split(qkv, 3, -1).map((t) => splitHeads(t, B, T, H));
    if (kvOut) kvOut.push({ k, v });
    const att = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), scale), bias));
    const y = mergeHeads(tf.matMul(att, v), B, T);
    x = tf.add(x, tf.add(tf.matMul(y, p("attn.wo")), p("attn.bo")));
    const h2 = layerNorm(x, p("ln2.g"), p("ln2.b"));
    const m = tf.add(tf.matMul(gelu(tf.add(tf.matMul(h2, p("mlp.wfc")), p("mlp.bfc"))), p("mlp.wproj")), p("mlp.bproj"));
    x = tf.add(x, m);
  }
  x = layerNorm(x, params["lnf.g"], params["lnf.b"]);
  return tf.matMul(x, params.wte, false, true) as tf.Tensor2D;
}

/** Per-position log-probabilities of `targets` ([B,T] int32) and the entropy of each position's distribution. */
export function targetLogprobs(
  params: ParamMap,
  cfg: GPTConfig,
  tokens: tf.Tensor2D,
  targets: tf.Tensor2D,
  withEntropy = false,
): { logprobs: tf.Tensor2D; entropy?: tf.Tensor2D } {
  const [B, T] = tokens.shape;
  const logits = forwardLogits(params, cfg, tokens);
  const logp = tf.logSoftmax(logits);
  const picked = tf.sum(tf.mul(logp, tf.oneHot(tf.reshape(targets, [B * T]), cfg.vocabSize).toFloat()), -1);
  const logprobs = tf.reshape(picked, [B, T]) as tf.Tensor2D;
  if (!withEntropy) return { logprobs };
  const entropy = tf.reshape(tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1)), [B, T]) as tf.Tensor2D;
  return { logprobs, entropy };
}

/**
 * Tinker's `prompt_logprobs`: the log-probability of each prompt token given the ones before it, at
 * temperature 1 (null for the first token, which has no context), as hosted Tinker and SkyRL tx
 * return them.
 */
export function promptLogprobs(params: ParamMap, cfg: GPTConfig, prompt: number[]): Array<number | null> {
  if (prompt.length < 2) return prompt.map(() => null);
  const values = tf.tidy(() => {
    const tokens = tf.tensor2d([prompt.slice(0, -1)], [1, prompt.length - 1], "int32");
    const targets = tf.tensor2d([prompt.slice(1)], [1, prompt.length - 1], "int32");
    return targetLogprobs(params, cfg, tokens, targets).logprobs.dataSync();
  });
  return [null, ...Array.from(values)];
}

// ---------------------------------------------------------------------------------------------
// Sampling with a KV cache

export interface SampleOptions {
  maxTokens: number;
  temperature: number;
  topP: number;
  /** ≤0 disables top-k. */
  topK: number;
  stopTokens: number[];
  /** Multi-token stop sequences: generation stops once the output ends with one of them. */
  stopSequences?: number[][];
  seed: number;
}

export interface SampledSequence {
  tokens: number[];
  logprobs: number[];
  stopReason: "stop" | "length";
}

export interface SampleRow {
  prompt: number[];
  options: SampleOptions;
}

/**
 * Chooses the next token from one row of logits and returns it with its logprob under the
 * sampling distribution (see the file comment).
 */
export function chooseToken(logits: Float32Array, opts: Pick<SampleOptions, "temperature" | "topP" | "topK">, rng: () => number): { token: number; logprob: number } {
  const V = logits.length;
  if (opts.temperature <= 0) {
    let best = 0;
    for (let i = 1; i < V; i++) if (logits[i] > logits[best]) best = i;
    return { token: best, logprob: logSoftmaxAt(logits, best, 1) };
  }
  const z = new Float64Array(V);
  let max = -Infinity;
  for (let i = 0; i < V; i++) {
    z[i] = logits[i] / opts.temperature;
    if (z[i] > max) max = z[i];
  }
  let total = 0;
  const p = new Float64Array(V);
  for (let i = 0; i < V; i++) {
    p[i] = Math.exp(z[i] - max);
    total += p[i];
  }
  for (let i = 0; i < V; i++) p[i] /= total;
  let keep: number[] | null = null;
  if ((opts.topK > 0 && opts.topK < V) || opts.topP < 1) {
    const order = Array.from({ length: V }, (_, i) => i).sort((a, b) => p[b] - p[a] || a - b);
    let n = opts.topK > 0 ? Math.min(opts.topK, V) : V;
    if (opts.topP < 1) {
      let cum = 0;
      for (let i = 0; i < n; i++) {
        cum += p[order[i]];
        if (cum >= opts.topP) {
          n = i + 1;
          break;
        }
      }
    }
    keep = order.slice(0, n);
  }
  const candidates = keep ?? Array.from({ length: V }, (_, i) => i);
  let mass = 0;
  for (const i of candidates) mass += p[i];
  let u = rng() * mass;
  let token = candidates[candidates.length - 1];
  for (const i of candidates) {
    u -= p[i];
    if (u <= 0) {
      token = i;
      break;
    }
  }
  return { token, logprob: Math.log(p[token] / mass) };
}

function logSoftmaxAt(logits: Float32Array, index: number, temperature: number): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i] / temperature);
  let total = 0;
  for (let i = 0; i < logits.length; i++) total += Math.exp(logits[i] / temperature - max);
  return logits[index] / temperature - max - Math.log(total);
}

/** One decode step for B rows. Returns logits [B,V] and the extended caches. */
function decodeStep(
  params: ParamMap,
  cfg: GPTConfig,
  tokens: Int32Array,
  positions: Int32Array,
  caches: LayerKV[],
  padBias: tf.Tensor4D, // [B,1,1,Tc] (already includes the new column)
): { logits: tf.Tensor2D; caches: LayerKV[] } {
  const B = tokens.length;
  const H = cfg.nHead;
  const scale = 1 / Math.sqrt(cfg.dModel / H);
  let x: tf.Tensor = tf.add(tf.gather(params.wte, tf.tensor1d(tokens, "int32")), tf.gather(params.wpe, tf.tensor1d(positions, "int32")));
  const next: LayerKV[] = [];
  for (let i = 0; i < cfg.nLayer; i++) {
    const p = (n: string) => params[`h${i}.${n}`];
    const h1 = layerNorm(x, p("ln1.g"), p("ln1.b"));
    const qkv = tf.add(tf.matMul(h1, p("attn.wqkv")), p("attn.bqkv"));
    const [q, k, v] = tf.split(qkv, 3, -1).map((t) => splitHeads(t, B, 1, H));
    const K = tf.concat([caches[i].k, k], 2) as tf.Tensor4D;
    const Vv = tf.concat([caches[i].v, v], 2) as tf.Tensor4D;
    next.push({ k: K, v: Vv });
    const att = tf.softmax(tf.add(tf.mul(tf.matMul(q, K, false, true), scale), padBias));
    const y = mergeHeads(tf.matMul(att, Vv), B, 1);
    x = tf.add(x, tf.add(tf.matMul(y, p("attn.wo")), p("attn.bo")));
    const h2 = layerNorm(x, p("ln2.g"), p("ln2.b"));
    x = tf.add(x, tf.add(tf.matMul(gelu(tf.add(tf.matMul(h2, p("mlp.wfc")), p("mlp.bfc"))), p("mlp.wproj")), p("mlp.bproj")));
  }
  x = layerNorm(x, params["lnf.g"], params["lnf.b"]);
  return { logits: tf.matMul(x, params.wte, false, true) as tf.Tensor2D, caches: next };
}

function endsWithAny(tokens: number[], sequences: number[][] | undefined): boolean {
  if (!sequences) return false;
  return sequences.some(
    (seq) => seq.length > 0 && seq.length <= tokens.length && seq.every((t, i) => tokens[tokens.length - seq.length + i] === t),
  );
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Samples a continuation for every row, decoding all rows together with a shared KV cache.
 * Rows are independent: each has its own options and RNG (seeded from options.seed).
 * Yields to the event loop between decode steps so an HTTP server stays responsive.
 */
export async function sampleRows(params: ParamMap, cfg: GPTConfig, rows: SampleRow[], opts: { yieldEvery?: number } = {}): Promise<SampledSequence[]> {
  const results: SampledSequence[] = rows.map(() => ({ tokens: [], logprobs: [], stopReason: "length" }));
  if (rows.length === 0) return results;
  for (const r of rows) {
    if (r.prompt.length === 0) throw new Error("prompt must contain at least one token");
    if (r.prompt.length >= cfg.contextLength) throw new Error(`prompt of ${r.prompt.length} tokens leaves no room in the context of ${cfg.contextLength}`);
  }
  const rngs = rows.map((r) => makeRng(r.options.seed));
  const budgets = rows.map((r) => Math.min(r.options.maxTokens, cfg.contextLength - r.prompt.length));
  const stopSets = rows.map((r) => new Set(r.options.stopTokens));

  // Prefill each prompt on its own, then left-pad the caches to a common length.
  const lastLogits: Float32Array[] = [];
  const perRowKV: LayerKV[][] = [];
  for (const r of rows) {
    const kv: LayerKV[] = [];
    const logits = tf.tidy(() => {
      const collected: LayerKV[] = [];
      const all = forwardLogits(params, cfg, tf.tensor2d([r.prompt], [1, r.prompt.length], "int32"), collected);
      for (const c of collected) kv.push({ k: tf.keep(c.k), v: tf.keep(c.v) });
      return all.slice([r.prompt.length - 1, 0], [1, cfg.vocabSize]).dataSync() as Float32Array;
    });
    lastLogits.push(logits);
    perRowKV.push(kv);
    await yieldToEventLoop();
  }
  const maxLen = Math.max(...rows.map((r) => r.prompt.length));
  let active: number[] = rows.map((_, i) => i); // row indices still generating
  let lengths = rows.map((r) => r.prompt.length); // tokens in context per row (positions of next input)
  let caches: LayerKV[] = tf.tidy(() =>
    Array.from({ length: cfg.nLayer }, (_, layer) => {
      const pad = (t: tf.Tensor4D, len: number) =>
        len === maxLen ? t : tf.concat([tf.zeros([1, t.shape[1], maxLen - len, t.shape[3]]), t], 2);
      const k = tf.concat(perRowKV.map((kv, i) => pad(kv[layer].k, rows[i].prompt.length)), 0) as tf.Tensor4D;
      const v = tf.concat(perRowKV.map((kv, i) => pad(kv[layer].v, rows[i].prompt.length)), 0) as tf.Tensor4D;
      return { k: tf.keep(k), v: tf.keep(v) };
    }),
  );
  for (const kv of perRowKV) for (const c of kv) (c.k.dispose(), c.v.dispose());
  // Additive mask over cache columns: -1e9 on left padding.
  let padMask: number[][] = rows.map((r) => Array.from({ length: maxLen }, (_, j) => (j < maxLen - r.prompt.length ? -1e9 : 0)));

  let logitsRows = lastLogits;
  let step = 0;
  try {
    while (active.length > 0) {
      // Choose the next token for each active row.
      const nextTokens: number[] = [];
      const stillActive: number[] = [];
      const keepIdx: number[] = [];
      active.forEach((row, j) => {
        const { token, logprob } = chooseToken(logitsRows[j], rows[row].options, rngs[row]);
        const res = results[row];
        res.tokens.push(token);
        res.logprobs.push(logprob);
        if (stopSets[row].has(token) || endsWithAny(res.tokens, rows[row].options.stopSequences)) res.stopReason = "stop";
        else if (res.tokens.length < budgets[row]) {
          stillActive.push(row);
          keepIdx.push(j);
          nextTokens.push(token);
        }
      });
      if (stillActive.length === 0) break;
      // Drop finished rows from the batch.
      if (stillActive.length !== active.length) {
        const idx = keepIdx;
        const old = caches;
        caches = tf.tidy(() => old.map((c) => ({ k: tf.keep(tf.gather(c.k, idx)), v: tf.keep(tf.gather(c.v, idx)) })));
        for (const c of old) (c.k.dispose(), c.v.dispose());
        padMask = idx.map((j) => padMask[j]);
        lengths = idx.map((j) => lengths[j]);
      }
      active = stillActive;
      for (const m of padMask) m.push(0);
      const positions = Int32Array.from(lengths);
      const old = caches;
      const out = tf.tidy(() => {
        const bias = tf.tensor4d(padMask.flat(), [active.length, 1, 1, padMask[0].length]);
        const r = decodeStep(params, cfg, Int32Array.from(nextTokens), positions, old, bias);
        const kept = r.caches.map((c) => ({ k: tf.keep(c.k), v: tf.keep(c.v) }));
        return { logits: r.logits.dataSync() as Float32Array, caches: kept };
      });
      for (const c of old) (c.k.dispose(), c.v.dispose());
      caches = out.caches;
      lengths = lengths.map((l) => l + 1);
      const V = cfg.vocabSize;
      logitsRows = active.map((_, j) => out.logits.subarray(j * V, (j + 1) * V));
      step++;
      if (step % (opts.yieldEvery ?? 1) === 0) await yieldToEventLoop();
    }
  } finally {
    for (const c of caches) (c.k.dispose(), c.v.dispose());
  }
  return results;
}
