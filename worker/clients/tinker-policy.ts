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
 *
 * This file is the client; building datums is tinker-datums.ts, the reported metrics tinker-metrics.ts
 * (both re-exported here).
 */
import type { GenerateRequest, GenerateResult, LossConfig, OptimConfig, PolicyClient, TrainerClient, TrainingDatum, ToolSchema } from "../engine/io";
import { leftTruncate } from "../engine/prompt-budget";
import { type ChatRenderer, loadRenderer, policyRenderOptions, type PromptCache, type RenderOptions } from "../../lib/renderers";
import {
  type Datum,
  type ResolvedProfile,
  type SamplingSession,
  TinkerClient,
  TinkerError,
  type TinkerModel,
  type TinkerClientOptions,
} from "../../lib/clients/tinker-client";
import { loraRankLimit } from "../../lib/clients/tinker-limits";
import type { TinkerServerProfile } from "../../contracts/node-settings";
import { type ServerLossSemantics, checkProfileAgainstReply, serverLossSemantics, unhonouredLossSettings, unhonouredOptimSettings } from "./loss-semantics";
import { isActive, lossFnConfig, prepareDatumsAsync, yieldToLoop } from "./tinker-datums";
import { optimMetrics, summarise } from "./tinker-metrics";

export { buildDatums, dropZeroAdvantage, lossFnConfig, packDatums, packDatumsAsync, prepareDatums, prepareDatumsAsync } from "./tinker-datums";
export { optimMetrics, summarise } from "./tinker-metrics";

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
  /**
   * One render cache per conversation, keyed by its first message object: the machine gives every
   * rollout its own copy of the instance's messages (machine/start.ts) and appends to it, so a rollout's
   * act prompts find the cache of the one before and render only what they add. The renderer checks
   * that the prompt really extends what it cached (else it renders from scratch); an entry goes with
   * its conversation.
   */
  private readonly promptCaches = new WeakMap<object, PromptCache>();

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
    return this.requestPromptTokens({ messages, tools });
  }

  /**
   * The prompt ids generate() sends for a request: rendered and tokenised once (with the conversation's
   * render cache), then — simulator prompts — left-truncated to their budget, as the reference does
   * (engine/prompt-budget.ts). These exact ids are sent, stored and trained.
   */
  requestPromptTokens(req: Pick<GenerateRequest, "messages" | "tools" | "thinking" | "maxPromptTokens">): number[] {
    const options = req.thinking === false ? { ...this.renderOptions(req.tools), enableThinking: false } : this.renderOptions(req.tools);
    const head = req.messages[0];
    let cache: PromptCache | undefined;
    if (head) {
      cache = this.promptCaches.get(head);
      if (!cache) this.promptCaches.set(head, (cache = {}));
    }
    return leftTruncate(this.renderer.renderPrompt(req.messages, options, cache), req.maxPromptTokens);
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const promptTokens = this.requestPromptTokens(req);
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

