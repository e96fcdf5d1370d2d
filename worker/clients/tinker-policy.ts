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
 *   positions and the sampling logprobs / advantages on response positions. Datums are typed arrays
 *   in the wire's types (int32 ids, float32 values) in pooled buffers, built and packed with pauses
 *   for the event loop (bench/pack.ts).
 * Loss semantics (README.md, loss-semantics.ts): Tinker losses are token SUMS; the run's verl
 * aggregation (optim.lossAgg) becomes per-token weights over the whole step, folded into the
 * advantages (exact: the PPO loss is positively homogeneous in A, clipping included) and sent as
 * `weights` where the server scales its KL/entropy terms by them; per server profile the
 * advantages are then rescaled so that the objective is the configured one on every server.
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
import { leftTruncate } from "../engine/prompt-budget";
import { type ChatRenderer, loadRenderer, policyRenderOptions, type RenderOptions } from "../../lib/renderers";
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
import type { LossAgg } from "../../contracts/run-config";
import type { TinkerServerProfile } from "../../contracts/node-settings";
import {
  type ServerLossSemantics,
  aggregationWeights,
  applyServerReduction,
  checkProfileAgainstReply,
  serverLossSemantics,
  unhonouredLossSettings,
  unhonouredOptimSettings,
} from "./loss-semantics";

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
  /**
   * Sample only (evaluation runs): no training model is created — sampling goes through a sampling
   * session on the base model, so an evaluation costs no LoRA adapter (SkyRL JAX has 31) and no
   * create_model on hosted Tinker. The trainer methods then refuse.
   */
  sampleOnly?: boolean;
  /**
   * With `sampleOnly`: sample this sampler checkpoint (tinker://…/sampler_weights/…, a trained run's
   * checkpoint on this node) instead of the base model — the sampling session is created with its path.
   */
  samplerPath?: string;
  /** The node's `tinker.server` setting (contracts/node-settings.ts): how the server reduces the loss. */
  server?: TinkerServerProfile;
  /** LoRA rank of the trained adapter (checked against the server's limit before create_model). */
  loraRank?: number;
  /** Largest LoRA rank when the server does not advertise it (node setting tinker.maxLoraRank). */
  maxLoraRank?: number | null;
  /** Where warnings go (the run log); each distinct warning is given once. Default: console.warn. */
  onWarning?: (message: string) => void;
  client?: Partial<TinkerClientOptions>;
}

/** Metrics are reported as means over the active (response) tokens of the call. */
export class TinkerPolicy implements PolicyClient, TrainerClient {
  private warned = new Set<string>();
  /** Set while the server profile was guessed ("auto" on SkyRL) and not yet confirmed by a reply. */
  private assumedProfile: boolean;
  private samplingSession: SamplingSession;
  private rank = 32;

  private constructor(
    readonly client: TinkerClient,
    /** null for a sample-only policy (evaluation runs). */
    private trainingModel: TinkerModel | null,
    readonly renderer: ChatRenderer,
    readonly contextLength: number | null,
    /** Loss-config extensions the node accepts (empty on hosted Tinker / SkyRL). */
    readonly extensions: Set<string>,
    /** How the server reduces the loss and which loss/optimiser settings it honours. */
    readonly lossSemantics: ServerLossSemantics,
    private readonly onWarning: (message: string) => void,
    assumed: string | null,
    readonly enableThinking?: boolean,
    baseSession?: SamplingSession,
  ) {
    this.samplingSession = baseSession as SamplingSession;
    this.assumedProfile = assumed !== null;
    if (assumed) this.warnOnce("profile", assumed);
  }

  /** The training model; a sample-only policy (evaluation) has none. */
  get model(): TinkerModel {
    if (!this.trainingModel)
      throw new Error(`node "${this.client.nodeName}": this policy only samples (an evaluation run creates no training model)`);
    return this.trainingModel;
  }

  /** The transport profile the client resolved (retries, long polls, recovery). */
  get profile(): ResolvedProfile {
    return this.client.profile;
  }

  static async create(opts: TinkerPolicyOptions): Promise<TinkerPolicy> {
    const onWarning = opts.onWarning ?? ((m: string) => console.warn(`[tinker-policy] ${m}`));
    const client = new TinkerClient({ baseUrl: opts.baseUrl, apiKey: opts.apiKey, nodeName: opts.nodeName, profile: opts.server, log: onWarning, ...opts.client });
    const node = opts.nodeName ?? opts.baseUrl;
    await client.start(["envace"]);
    try {
      const caps = await client.capabilities();
      const entry = caps.supported_models.find((m) => m.model_name === opts.model);
      if (!entry) throw new Error(`node "${node}" does not serve '${opts.model}' (it serves: ${caps.supported_models.map((m) => m.model_name).join(", ")})`);
      if (opts.sampleOnly && opts.resumeFrom) throw new Error("a sample-only policy cannot resume a training state");
      if (opts.samplerPath && !opts.sampleOnly) throw new Error("a checkpoint's sampler path is sampled by a sample-only policy");
      const rank = opts.loraRank ?? 32;
      let model: TinkerModel | null = null;
      if (!opts.sampleOnly) {
        const limit = loraRankLimit(client.profile, caps, opts.maxLoraRank);
        if (limit !== null && rank > limit)
          throw new Error(`LoRA rank ${rank} is above what node "${node}" allows (${limit}, ${client.profile}); lower policy.loraRank or raise the node's tinker.maxLoraRank`);
        model = await client.createModel(opts.model, { loraRank: rank });
      }
      const base = await client.createSamplingSession(opts.samplerPath ? { modelPath: opts.samplerPath } : { baseModel: opts.model });
      const renderer = opts.renderer ?? loadRenderer("tiny-gpt");
      const contextLength = opts.contextLength ?? entry.max_context_length ?? renderer.contextLength ?? null;
      const extensions = new Set(caps.node?.extensions ?? []);
      // The one profile detection (lib/clients/tinker-profile.ts), made by the client in start().
      const { profile, assumed } = client.detectedProfile;
      // A sample-only policy never trains: the profile's loss semantics and its guess do not matter.
      const policy = new TinkerPolicy(client, model, renderer, contextLength, extensions, serverLossSemantics(profile, extensions), onWarning, model ? assumed : null, opts.enableThinking, base);
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

  /** How every prompt of this policy is rendered (lib/renderers/policy-options.ts, which the launch check measures with). */
  renderOptions(tools?: ToolSchema[]): RenderOptions {
    return policyRenderOptions(tools, this.enableThinking);
  }

  /** The prompt ids generate() would send for these messages. */
  promptTokens(messages: GenerateRequest["messages"], tools?: ToolSchema[]): number[] {
    return this.renderer.renderPrompt(messages, this.renderOptions(tools));
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    // Rendered and tokenised once; these exact ids are sent, stored and trained.
    // Simulator prompts are left-truncated to their budget, as the reference does (engine/prompt-budget.ts).
    const options = req.thinking === false ? { ...this.renderOptions(req.tools), enableThinking: false } : this.renderOptions(req.tools);
    const promptTokens = leftTruncate(this.renderer.renderPrompt(req.messages, options), req.maxPromptTokens);
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
    this.onWarning(message);
  }

  /**
   * One update's rows (send a whole training step in one call: the aggregation weights are computed
   * over the rows given here, before any chunking of the request).
   */
  async forwardBackward(data: TrainingDatum[], loss: LossConfig): Promise<{ metrics: Record<string, number> }> {
    if (data.length === 0) return { metrics: { tokens: 0 } };
    const sem = this.lossSemantics;
    for (const w of unhonouredLossSettings(sem, loss)) this.warnOnce(w.key, w.message);
    // A paper-scale step is millions of positions: built and packed in slices, so other work
    // (heartbeats, HTTP, other rollouts) keeps running (bench/pack.ts measures the longest pause).
    const prepared = await prepareDatumsAsync(data, loss, sem);
    let datums = prepared.datums;
    const extra: Record<string, number> = {};
    if (loss.recomputeLogprobs) {
      const r = await this.recomputeLogprobs(datums);
      datums = r.datums;
      extra.recomputed_logprob_abs_diff = r.meanAbsDiff;
    }
    const out = await this.model.forwardBackward(datums, loss.loss, lossFnConfig(loss, sem));
    if (this.assumedProfile) {
      const mismatch = checkProfileAgainstReply(sem.profile, out.metrics ?? {});
      if (mismatch) throw new Error(mismatch);
      this.assumedProfile = false;
    }
    return { metrics: { ...summarise(out, datums, sem, prepared.responseTokens), ...extra } };
  }

  /**
   * The reference's ratio: log-probs of the sampled tokens under the trainer's current weights (a
   * forward pass before the update) replace the sampler's on the trained positions. Returns the
   * mean |recomputed − sampled| over those positions, a measure of sampler/trainer mismatch.
   */
  private async recomputeLogprobs(datums: Datum[]): Promise<{ datums: Datum[]; meanAbsDiff: number }> {
    const probe: Datum[] = datums.map((d) => ({
      model_input: d.model_input,
      loss_fn_inputs: {
        target_tokens: d.loss_fn_inputs.target_tokens,
        weights: { data: new Array<number>(d.loss_fn_inputs.target_tokens.data.length).fill(0), dtype: "float32" },
      },
    }));
    const out = await this.model.forward(probe, "cross_entropy");
    let diff = 0;
    let n = 0;
    const next = datums.map((d, k) => {
      const lp = out.loss_fn_outputs?.[k]?.logprobs?.data;
      const len = d.loss_fn_inputs.target_tokens.data.length;
      if (!Array.isArray(lp) || lp.length !== len || lp.some((x) => typeof x !== "number" || !Number.isFinite(x))) {
        throw new Error(`forward (recomputing log-probs) returned no usable logprobs for datum ${k}: expected ${len} finite values`);
      }
      const logprobs = Array.from(d.loss_fn_inputs.logprobs.data);
      for (let i = 0; i < len; i++) {
        if (!isActive(d, i)) continue;
        diff += Math.abs(lp[i] - logprobs[i]);
        n++;
        logprobs[i] = lp[i];
      }
      return { ...d, loss_fn_inputs: { ...d.loss_fn_inputs, logprobs: { ...d.loss_fn_inputs.logprobs, data: logprobs } } };
    });
    return { datums: next, meanAbsDiff: n > 0 ? diff / n : 0 };
  }

  async optimStep(optim: OptimConfig): Promise<{ metrics: Record<string, number> }> {
    for (const w of unhonouredOptimSettings(this.lossSemantics, optim)) this.warnOnce(w.key, w.message);
    const r = await this.model.optimStep({
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
    this.samplingSession = await this.model.saveWeightsForSamplerEphemeral();
  }

  /** Persistent publication under `name` (checkpoints); returns the tinker:// sampler path. */
  async saveWeightsForSampler(name: string): Promise<{ path: string }> {
    return this.model.saveWeightsForSampler(name);
  }

  async saveState(name: string): Promise<{ path: string }> {
    return this.model.saveWeights(name);
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
    if (this.model.pendingSeqId !== 1) await this.replaceModel(this.rank);
    try {
      await this.model.loadWeights(path, true);
    } catch (e) {
      if (!(e instanceof TinkerError) || !e.afterLostReply) throw e;
      this.onWarning(`node "${this.client.nodeName}": load_weights of ${path} lost its reply (${e.message}); loading into a fresh model`);
      await this.replaceModel(this.rank);
      await this.model.loadWeights(path, true);
    }
    // Sample from the loaded weights from now on.
    await this.updateSampler();
  }

  private async replaceModel(rank: number): Promise<void> {
    const old = this.model;
    this.trainingModel = await this.client.createModel(old.baseModel, { loraRank: rank });
    await old.unload().catch((e) => this.onWarning(`node "${this.client.nodeName}": could not unload model ${old.modelId}: ${(e as Error).message}`));
  }
}

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

/** About 10 ms of work between pauses. */
const YIELD_EVERY_POSITIONS = 250_000;

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
  const w = aggregationWeights(
    data.map((d) => new Array<number>(d.responseTokens.length).fill(1)),
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
    for (let j = 0; j < n; j++) advantages[pad + j] = d.advantages[j] * w[i][j];
    const inputs: Datum["loss_fn_inputs"] = {
      target_tokens: { data: seq.subarray(1), dtype: "int64" },
      logprobs: { data: logprobs, dtype: "float32" },
      advantages: { data: advantages, dtype: "float32" },
    };
    if (weightPool) {
      const weights = weightPool.subarray(at, at + len);
      if (opts.weights === "aggregation") weights.set(w[i], pad);
      else weights.fill(1, pad);
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

/**
 * The server's reply → run metrics. `loss` is the step's objective as configured: the node's
 * `loss:sum` (the aggregation weights are in the advantages), SkyRL-Train's `total_loss:sum`, or —
 * SkyRL JAX reports no metrics — recomputed from the per-token `elementwise_loss` under that server's
 * reduction; absent when nothing says it (never NaN). `pg_loss`, `kl_loss`, `entropy_loss` are
 * verl's aggregated parts where the server reports them; the rest are means over the trained tokens.
 */
export function summarise(out: ForwardBackwardOutput, sent: Datum[], sem: ServerLossSemantics, responseTokens: number): Record<string, number> {
  const m = out.metrics ?? {};
  const result: Record<string, number> = { tokens: responseTokens };
  const loss = m["loss:sum"] ?? m["total_loss:sum"] ?? lossFromElementwise(out, sent, sem);
  if (loss !== undefined && Number.isFinite(loss)) result.loss = loss;
  const pg = m["pg_loss:sum"] ?? (sem.profile === "tinker" || sem.profile === "skyrl-jax" ? result.loss : undefined);
  if (pg !== undefined) result.pg_loss = pg;
  if ("kl_loss:sum" in m) result.kl_loss = m["kl_loss:sum"];
  if ("entropy_loss:sum" in m && sem.profile === "envace-embedded") result.entropy_loss = m["entropy_loss:sum"];
  const tokens = m["tokens:sum"];
  const mean = (k: string) => (k in m && tokens !== undefined && tokens > 0 ? m[k] / tokens : undefined);
  const extra = {
    clip_frac: mean("clipped:sum"),
    dual_clip_frac: mean("dual_clipped:sum"),
    ratio_mean: mean("ratio:sum"),
    kl: mean("kl:sum"),
    entropy: mean("entropy:sum"),
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) result[k] = v;
  return result;
}

/** Σ of the per-token losses a server returns, reduced as the server reduces them (undefined when absent). */
function lossFromElementwise(out: ForwardBackwardOutput, sent: Datum[], sem: ServerLossSemantics): number | undefined {
  const outputs = out.loss_fn_outputs ?? [];
  if (outputs.length !== sent.length || outputs.some((o) => !Array.isArray(o?.elementwise_loss?.data))) return undefined;
  let total = 0;
  outputs.forEach((o, k) => {
    const s = o.elementwise_loss.data.reduce((a, b) => a + b, 0);
    if (!sem.perDatumMean) total += s;
    else {
      const weights = sent[k].loss_fn_inputs.weights?.data ?? [];
      let W = 0;
      for (let i = 0; i < weights.length; i++) W += weights[i];
      total += s / Math.max(W, 1e-9) / sent.length;
    }
  });
  return total;
}

/** optim_step metrics under one set of names on every server (SkyRL prefixes its own with "skyrl.ai/"). */
export function optimMetrics(m: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(m)) if (Number.isFinite(v)) out[k.replace(/^skyrl\.ai\//, "").replace(/:[a-z_]+$/, "")] = v;
  return out;
}
