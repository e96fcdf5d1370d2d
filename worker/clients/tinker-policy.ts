/**
 * PolicyClient + TrainerClient (worker/engine/io.ts) on top of a Tinker-compatible node.
 *
 * Sampling (token in / token out): the node model's renderer (lib/renderers) renders and tokenises
 *   the chat once → asample with the renderer's stop tokens (tokens + logprobs) → the sampled ids are
 *   kept verbatim (they are what is trained) and decoded only for parsing; an id outside the
 *   renderer's vocabulary is a TokenOutOfVocabularyError. Samples go through sampling sessions (each
 *   with its own seq_id counter): one on the base model at start, then the session each ephemeral
 *   sampler save returns (updateSampler, once per training step). Persistent sampler saves
 *   (saveWeightsForSampler) happen only when the caller asks — at checkpoints. max_tokens is clamped
 *   to the model's context (node settings, advertised, or the renderer's).
 * Training: each TrainingDatum becomes one Tinker Datum over the full sequence prompt+response:
 *   model_input = seq[0..n-2], target_tokens = seq[1..n-1]; logprobs/advantages are 0 on prompt
 *   positions and the sampling logprobs / advantages on response positions.
 * Loss normalisation (see README.md): Tinker losses are token SUMS. To get the reference
 * token-mean, advantages are multiplied by 1/(response tokens in the forwardBackward call); the
 * PPO loss is positively homogeneous in A, so this is exact, clipping included.
 */
import type {
  GenerateRequest,
  GenerateResult,
  LossConfig,
  OptimConfig,
  PolicyClient,
  TrainerClient,
  TrainingDatum,
  ToolSchema,
} from "../engine/io";
import { type ChatRenderer, loadRenderer, type RenderOptions } from "../../lib/renderers";
import {
  type Datum,
  type ForwardBackwardOutput,
  type ResolvedProfile,
  type SamplingSession,
  TinkerClient,
  TinkerError,
  type TinkerModel,
  type TinkerClientOptions,
  tokensInput,
} from "../../lib/clients/tinker-client";
import { loraRankLimit } from "../../lib/clients/tinker-limits";

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface TinkerPolicyOptions {
  baseUrl: string;
  apiKey?: string;
  /** Node name (for error messages and the run log). */
  nodeName?: string;
  /** Base model name on the node (e.g. "tiny-gpt"). */
  model: string;
  /** How the node's model renders prompts (default: the embedded node's tiny-gpt format). */
  renderer?: ChatRenderer;
  /** Qwen3's enable_thinking switch (undefined: the template's default). */
  enableThinking?: boolean;
  /** The model's context window; wins over the node's advertised value and the renderer's. */
  contextLength?: number;
  /** Resume from a training checkpoint (tinker://…/weights/…) right after create_model. */
  resumeFrom?: string;
  /** LoRA rank of the trained adapter (checked against the server's limit before create_model). */
  loraRank?: number;
  /** Largest LoRA rank when the server does not advertise it (node setting tinker.maxLoraRank). */
  maxLoraRank?: number | null;
  client?: Partial<TinkerClientOptions>;
  /** Run-log sink for warnings (dropped settings, recoveries). Default console.warn. */
  log?: (message: string) => void;
}

/** Metrics are reported as means over the active (response) tokens of the call. */
export class TinkerPolicy implements PolicyClient, TrainerClient {
  private warned = new Set<string>();
  private samplingSession: SamplingSession;
  private rank = 32;

  private constructor(
    readonly client: TinkerClient,
    private trainingModel: TinkerModel,
    readonly renderer: ChatRenderer,
    readonly contextLength: number | null,
    /** Loss-config extensions the node accepts (empty on hosted Tinker / SkyRL). */
    readonly extensions: Set<string>,
    readonly enableThinking: boolean | undefined,
    baseSession: SamplingSession,
    private readonly log: (message: string) => void,
  ) {
    this.samplingSession = baseSession;
  }

  get model(): TinkerModel {
    return this.trainingModel;
  }

  get profile(): ResolvedProfile {
    return this.client.profile;
  }

  static async create(opts: TinkerPolicyOptions): Promise<TinkerPolicy> {
    const log = opts.log ?? ((m: string) => console.warn(`[tinker-policy] ${m}`));
    const client = new TinkerClient({ baseUrl: opts.baseUrl, apiKey: opts.apiKey, nodeName: opts.nodeName, log, ...opts.client });
    const node = opts.nodeName ?? opts.baseUrl;
    await client.start(["envace"]);
    try {
      const caps = await client.capabilities();
      const entry = caps.supported_models.find((m) => m.model_name === opts.model);
      if (!entry) throw new Error(`node "${node}" does not serve '${opts.model}' (it serves: ${caps.supported_models.map((m) => m.model_name).join(", ")})`);
      const rank = opts.loraRank ?? 32;
      const limit = loraRankLimit(client.profile, caps, opts.maxLoraRank);
      if (limit !== null && rank > limit)
        throw new Error(`LoRA rank ${rank} is above what node "${node}" allows (${limit}, ${client.profile}); lower policy.loraRank or raise the node's tinker.maxLoraRank`);
      const renderer = opts.renderer ?? loadRenderer("tiny-gpt");
      const contextLength = opts.contextLength ?? entry.max_context_length ?? renderer.contextLength ?? null;
      const model = await client.createModel(opts.model, { loraRank: rank });
      const base = await client.createSamplingSession({ baseModel: opts.model });
      const policy = new TinkerPolicy(client, model, renderer, contextLength, new Set(caps.node?.extensions ?? []), opts.enableThinking, base, log);
      policy.rank = rank;
      if (opts.resumeFrom) await policy.loadState(opts.resumeFrom);
      return policy;
    } catch (e) {
      client.close();
      throw e;
    }
  }

  close(): void {
    this.client.close();
  }

  /** The sampling session generate() uses now (base model, then the latest published weights). */
  get sampler(): SamplingSession {
    return this.samplingSession;
  }

  /**
   * How every prompt of this policy is rendered: the reference's incremental caller buffer (each past
   * assistant turn keeps its <think> text; worker/engine/DIFFERENCES.md), tool-call arguments written
   * by the template's own tojson (as the model writes them), the node model's thinking switch.
   */
  renderOptions(tools?: ToolSchema[]): RenderOptions {
    return {
      tools,
      addGenerationPrompt: true,
      history: "incremental",
      parseToolArguments: true,
      ...(this.enableThinking !== undefined ? { enableThinking: this.enableThinking } : {}),
    };
  }

  /** The prompt ids generate() would send for these messages. */
  promptTokens(messages: GenerateRequest["messages"], tools?: ToolSchema[]): number[] {
    return this.renderer.renderPrompt(messages, this.renderOptions(tools));
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    // Rendered and tokenised once; these exact ids are sent, stored and trained.
    const promptTokens = this.promptTokens(req.messages, req.tools);
    let maxTokens = req.sampling.maxTokens;
    if (this.contextLength !== null) {
      // Prompt fills the context: nothing can be generated; report it as a length stop.
      if (promptTokens.length >= this.contextLength) return { text: "", promptTokens, tokens: [], logprobs: [], finishReason: "length" };
      maxTokens = Math.min(maxTokens, this.contextLength - promptTokens.length);
    }
    const res = await this.samplingSession.sample(promptTokens, {
      max_tokens: maxTokens,
      temperature: req.sampling.temperature,
      top_p: req.sampling.topP,
      top_k: -1,
      ...(req.sampling.seed !== undefined ? { seed: req.sampling.seed } : {}),
      // Servers such as SkyRL stop only at the ids a request names: the template's end tokens.
      stop: [...this.renderer.stopTokens],
    });
    const seq = res.sequences[0];
    if (!seq) throw new Error(`node "${this.client.nodeName}": asample returned no sequence`);
    if (!seq.logprobs || seq.logprobs.length !== seq.tokens.length) throw new Error(`node "${this.client.nodeName}": asample returned no per-token logprobs`);
    // decode() refuses ids outside the renderer's vocabulary (TokenOutOfVocabularyError): the node
    // serves another model than the one this run renders for.
    const text = this.renderer.decode(seq.tokens);
    return { text, promptTokens, tokens: seq.tokens, logprobs: seq.logprobs, finishReason: seq.stop_reason };
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.log(message);
  }

  async forwardBackward(data: TrainingDatum[], loss: LossConfig): Promise<{ metrics: Record<string, number> }> {
    if (data.length === 0) return { metrics: { tokens: 0 } };
    // A paper-scale step is millions of positions: built and packed in slices, so other work
    // (heartbeats, HTTP, other rollouts) keeps running (bench/pack.ts measures the longest pause).
    const built = await buildDatumsAsync(data, { sendWeights: this.extensions.has("weights") });
    const responseTokens = built.responseTokens;
    // Exact savings (the loss is a token sum): without KL/entropy terms a datum whose advantages are
    // all zero has zero gradient, and a datum that is a prefix of another rides along inside it.
    const regularised = (loss.klCoef !== 0 && this.extensions.has("kl_coef")) || (loss.entropyCoef !== 0 && this.extensions.has("entropy_coef"));
    const datums = await packDatumsAsync(regularised ? built.datums : dropZeroAdvantage(built.datums));
    const config: Record<string, number> = { clip_low_threshold: 1 - loss.clipLow, clip_high_threshold: 1 + loss.clipHigh };
    if (loss.loss === "ppo") {
      if (this.extensions.has("dual_clip_threshold")) config.dual_clip_threshold = loss.dualClip;
      else this.warnOnce("dual", "this node has no dual clip; dual clip ignored");
    }
    if (loss.klCoef !== 0) {
      if (this.extensions.has("kl_coef")) config.kl_coef = loss.klCoef;
      else this.warnOnce("kl", "this node has no KL term; the KL coefficient is ignored");
    }
    if (loss.entropyCoef !== 0) {
      if (this.extensions.has("entropy_coef")) config.entropy_coef = loss.entropyCoef;
      else this.warnOnce("entropy", "this node has no entropy term; the entropy coefficient is ignored");
    }
    const out = await this.trainingModel.forwardBackward(datums, loss.loss, loss.loss === "ppo" ? config : undefined);
    return { metrics: summarise(out, responseTokens) };
  }

  async optimStep(optim: OptimConfig): Promise<{ metrics: Record<string, number> }> {
    const r = await this.trainingModel.optimStep({
      learning_rate: optim.lr,
      beta1: optim.beta1,
      beta2: optim.beta2,
      eps: optim.eps,
      weight_decay: optim.weightDecay,
      grad_clip_norm: optim.gradClip,
    });
    return { metrics: optimMetrics(r.metrics ?? {}) };
  }

  /** Ephemeral publication (every training step): later generate() calls sample from the new weights. */
  async updateSampler(): Promise<void> {
    this.samplingSession = await this.trainingModel.saveWeightsForSamplerEphemeral();
  }

  /** Persistent publication under `name` (checkpoints); returns the tinker:// sampler path. */
  async saveWeightsForSampler(name: string): Promise<{ path: string }> {
    return this.trainingModel.saveWeightsForSampler(name);
  }

  async saveState(name: string): Promise<{ path: string }> {
    return this.trainingModel.saveWeights(name);
  }

  /** Deletes a saved checkpoint (a training state no longer needed for resuming). */
  async deleteState(path: string): Promise<void> {
    await this.client.deleteCheckpoint(path);
  }

  /**
   * load_weights is allowed only as a model's first request. The policy's model gets it right after
   * create_model; if it has other requests already, or a lost reply made the server count the load
   * as done (SkyRL refuses the retry with 400), the load goes into a fresh model and the old one is
   * unloaded.
   */
  async loadState(path: string): Promise<void> {
    if (this.trainingModel.pendingSeqId !== 1) await this.replaceModel(this.rank);
    try {
      await this.trainingModel.loadWeights(path, true);
    } catch (e) {
      if (!(e instanceof TinkerError) || !e.afterLostReply) throw e;
      this.log(`node "${this.client.nodeName}": load_weights of ${path} lost its reply (${e.message}); loading into a fresh model`);
      await this.replaceModel(this.rank);
      await this.trainingModel.loadWeights(path, true);
    }
    // Sample from the loaded weights from now on.
    await this.updateSampler();
  }

  private async replaceModel(rank: number): Promise<void> {
    const old = this.trainingModel;
    this.trainingModel = await this.client.createModel(old.baseModel, { loraRank: rank });
    await old.unload().catch((e) => this.log(`node "${this.client.nodeName}": could not unload model ${old.modelId}: ${(e as Error).message}`));
  }
}

/**
 * TrainingDatum[] → Tinker datums with token-mean scaling: advantages (and weights, when sent)
 * are divided by the number of response tokens in the call.
 */
export function buildDatums(data: TrainingDatum[], opts: { sendWeights: boolean }): { datums: Datum[]; responseTokens: number } {
  return runSync(buildDatumsSteps(data, opts));
}

/** buildDatums with a pause for the event loop every few hundred datums (a paper-scale step). */
export function buildDatumsAsync(data: TrainingDatum[], opts: { sendWeights: boolean }): Promise<{ datums: Datum[]; responseTokens: number }> {
  return runYielding(buildDatumsSteps(data, opts));
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

function* buildDatumsSteps(data: TrainingDatum[], opts: { sendWeights: boolean }): Generator<void, { datums: Datum[]; responseTokens: number }> {
  let responseTokens = 0;
  for (const d of data) responseTokens += d.responseTokens.length;
  const scale = responseTokens > 0 ? 1 / responseTokens : 0;
  // Typed arrays in the wire's own types (int32 ids, float32 values): a paper-scale step has millions
  // of positions, which plain arrays, spreads and per-element callbacks turn into seconds (bench/pack.ts).
  // One buffer per kind for the whole call, each datum a view into it: a few allocations instead of
  // thousands keeps the garbage collector out of the step.
  let seqTotal = 0;
  for (let i = 0; i < data.length; i++) {
    const d = data[i];
    const n = d.responseTokens.length;
    if (d.logprobs.length !== n || d.advantages.length !== n)
      throw new Error(`training datum ${i}: ${n} response tokens but ${d.logprobs.length} logprobs and ${d.advantages.length} advantages`);
    if (d.promptTokens.length === 0) throw new Error(`training datum ${i}: empty prompt`);
    seqTotal += d.promptTokens.length + n;
  }
  const seqPool = new Int32Array(seqTotal);
  const logprobPool = new Float32Array(seqTotal);
  const advantagePool = new Float32Array(seqTotal);
  const weightPool = opts.sendWeights ? new Float32Array(seqTotal) : null;
  const datums: Datum[] = [];
  let positions = 0;
  let at = 0;
  for (let i = 0; i < data.length; i++) {
    const d = data[i];
    const n = d.responseTokens.length;
    const p = d.promptTokens.length;
    const pad = p - 1; // input positions that predict prompt tokens
    const seq = seqPool.subarray(at, at + p + n);
    seq.set(d.promptTokens);
    seq.set(d.responseTokens, p);
    const len = p + n - 1; // model_input = seq[0..len-1], target_tokens = seq[1..len] (views, no copy)
    const logprobs = logprobPool.subarray(at, at + len);
    logprobs.set(d.logprobs, pad);
    const advantages = advantagePool.subarray(at, at + len);
    for (let j = 0; j < n; j++) advantages[pad + j] = d.advantages[j] * scale;
    at += p + n;
    const inputs: Datum["loss_fn_inputs"] = {
      target_tokens: { data: seq.subarray(1), dtype: "int64" },
      logprobs: { data: logprobs, dtype: "float32" },
      advantages: { data: advantages, dtype: "float32" },
    };
    if (weightPool) {
      const weights = weightPool.subarray(at - p - n, at - p - n + len);
      weights.fill(scale, pad);
      inputs.weights = { data: weights, dtype: "float32" };
    }
    datums.push({ model_input: tokensInput(seq.subarray(0, len)), loss_fn_inputs: inputs });
    positions += len;
    if (positions > YIELD_EVERY_POSITIONS) {
      positions = 0;
      yield;
    }
  }
  return { datums, responseTokens };
}

/** About 10 ms of packing work between pauses. */
const YIELD_EVERY_POSITIONS = 250_000;

const isActive = (d: Datum, i: number) => d.loss_fn_inputs.advantages.data[i] !== 0 || (d.loss_fn_inputs.weights?.data[i] ?? 0) !== 0;

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
  const isPrefixOf = (item: Item, k: Item) => {
    if (k.len < item.len) return false;
    const c = colOf.get(item.len)!;
    if (hash[k.row * C + c] !== hash[item.row * C + c]) return false;
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
    const host = kept.find((k) => isPrefixOf(item, k) && disjoint(item, k));
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

/**
 * forward_backward metrics → the run's actor metrics. The loss is what the server reports: `loss:sum`
 * (hosted Tinker, the embedded node), `total_loss:sum` (SkyRL FSDP/Megatron), or else the sum of the
 * per-token `elementwise_loss` outputs (SkyRL JAX, whose metrics are empty) — never NaN. The embedded
 * node's sums become means over the response tokens; other server metrics pass through by name.
 */
export function summarise(out: Pick<ForwardBackwardOutput, "metrics" | "loss_fn_outputs">, responseTokens: number): Record<string, number> {
  const m = out.metrics;
  const tokens = m["tokens:sum"] ?? responseTokens;
  const mean = (k: string) => (k in m && tokens > 0 ? m[k] / tokens : undefined);
  const result: Record<string, number> = { tokens: responseTokens };
  let loss = m["loss:sum"] ?? m["total_loss:sum"];
  if (loss === undefined && out.loss_fn_outputs.length > 0 && out.loss_fn_outputs.every((o) => o.elementwise_loss)) {
    loss = out.loss_fn_outputs.reduce((sum, o) => sum + o.elementwise_loss.data.reduce((a, b) => a + b, 0), 0);
  }
  if (loss !== undefined && Number.isFinite(loss)) result.loss = loss;
  const extra = { clip_frac: mean("clipped:sum"), ratio_mean: mean("ratio:sum"), kl: mean("kl:sum"), entropy: mean("entropy:sum") };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) result[k] = v;
  const consumed = new Set(["loss:sum", "total_loss:sum", "tokens:sum", "clipped:sum", "ratio:sum", "kl:sum", "entropy:sum"]);
  for (const [k, v] of Object.entries(m)) {
    const name = k.replace(/:[a-z_]+$/, "");
    if (!consumed.has(k) && !(name in result) && Number.isFinite(v)) result[name] = v;
  }
  return result;
}

/** optim_step metrics under one set of names on every server (SkyRL prefixes its own with "skyrl.ai/"). */
export function optimMetrics(m: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(m)) if (Number.isFinite(v)) out[k.replace(/^skyrl\.ai\//, "").replace(/:[a-z_]+$/, "")] = v;
  return out;
}
