/**
 * PolicyClient + TrainerClient (worker/engine/io.ts) on top of a Tinker-compatible node.
 *
 * Sampling (token in / token out): the node model's renderer (lib/renderers) renders and tokenises
 *   the chat once → asample with the renderer's stop tokens (tokens + logprobs) → the sampled ids are
 *   kept verbatim (they are what is trained) and decoded only for parsing; an id outside the
 *   renderer's vocabulary is a TokenOutOfVocabularyError.
 * Training: each TrainingDatum becomes one Tinker Datum over the full sequence prompt+response:
 *   model_input = seq[0..n-2], target_tokens = seq[1..n-1]; logprobs/advantages are 0 on prompt
 *   positions and the sampling logprobs / advantages on response positions.
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
import { type ChatRenderer, loadRenderer, type RenderOptions } from "../../lib/renderers";
import { type Datum, type ForwardBackwardOutput, TinkerClient, type TinkerModel, type TinkerClientOptions, tokensInput } from "./tinker-client";
import type { LossAgg } from "../../contracts/run-config";
import type { TinkerServerProfile } from "../../contracts/node-settings";
import {
  type ServerLossSemantics,
  aggregationWeights,
  applyServerReduction,
  checkProfileAgainstReply,
  resolveServerProfile,
  serverLossSemantics,
  unhonouredLossSettings,
  unhonouredOptimSettings,
} from "./loss-semantics";

export interface TinkerPolicyOptions {
  baseUrl: string;
  apiKey?: string;
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
  /** The node's `tinker.server` setting (contracts/node-settings.ts): how the server reduces the loss. */
  server?: TinkerServerProfile;
  /** Where warnings go (the run log); each distinct warning is given once. Default: console.warn. */
  onWarning?: (message: string) => void;
  client?: Partial<TinkerClientOptions>;
}

/** Metrics are reported as means over the active (response) tokens of the call. */
export class TinkerPolicy implements PolicyClient, TrainerClient {
  private samplingTarget: { samplingSessionId: string } | { modelPath: string } | { baseModel: string };
  private warned = new Set<string>();
  /** Set while the server profile was guessed ("auto" on SkyRL) and not yet confirmed by a reply. */
  private assumedProfile: boolean;

  private constructor(
    readonly client: TinkerClient,
    readonly model: TinkerModel,
    readonly renderer: ChatRenderer,
    readonly contextLength: number | null,
    /** Loss-config extensions the node accepts (empty on hosted Tinker / SkyRL). */
    readonly extensions: Set<string>,
    /** How the server reduces the loss and which loss/optimiser settings it honours. */
    readonly lossSemantics: ServerLossSemantics,
    private readonly onWarning: (message: string) => void,
    assumed: string | null,
    readonly enableThinking?: boolean,
  ) {
    this.samplingTarget = { baseModel: model.baseModel };
    this.assumedProfile = assumed !== null;
    if (assumed) this.warnOnce("profile", assumed);
  }

  static async create(opts: TinkerPolicyOptions): Promise<TinkerPolicy> {
    const client = new TinkerClient({ baseUrl: opts.baseUrl, apiKey: opts.apiKey, ...opts.client });
    await client.start(["envace"]);
    try {
      const caps = await client.capabilities();
      const entry = caps.supported_models.find((m) => m.model_name === opts.model);
      if (!entry) throw new Error(`node ${opts.baseUrl} does not serve '${opts.model}' (it serves: ${caps.supported_models.map((m) => m.model_name).join(", ")})`);
      const model = await client.createModel(opts.model);
      const renderer = opts.renderer ?? loadRenderer("tiny-gpt");
      const contextLength = opts.contextLength ?? entry.max_context_length ?? renderer.contextLength ?? null;
      const extensions = new Set(caps.node?.extensions ?? []);
      const { profile, assumed } = resolveServerProfile(opts.server ?? "auto", { embedded: caps.node?.kind === "embedded", modelId: model.modelId });
      const policy = new TinkerPolicy(
        client,
        model,
        renderer,
        contextLength,
        extensions,
        serverLossSemantics(profile, extensions),
        opts.onWarning ?? ((m) => console.warn(`[tinker-policy] ${m}`)),
        assumed,
        opts.enableThinking,
      );
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

  /** Where generate() samples from now (base model, then the latest published weights). */
  get sampler() {
    return this.samplingTarget;
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
    const res = await this.client.sample(this.samplingTarget, promptTokens, {
      max_tokens: maxTokens,
      temperature: req.sampling.temperature,
      top_p: req.sampling.topP,
      top_k: -1,
      ...(req.sampling.seed !== undefined ? { seed: req.sampling.seed } : {}),
      // Servers such as SkyRL stop only at the ids a request names: the template's end tokens.
      stop: [...this.renderer.stopTokens],
    });
    const seq = res.sequences[0];
    if (!seq) throw new Error("asample returned no sequence");
    if (!seq.logprobs || seq.logprobs.length !== seq.tokens.length) throw new Error("asample returned no per-token logprobs");
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
    const prepared = prepareDatums(data, loss, sem);
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
      const logprobs = [...d.loss_fn_inputs.logprobs.data];
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
    return { metrics: r.metrics ?? {} };
  }

  /** Persistent publication under `name`; later generate() calls sample from it. */
  async saveWeightsForSampler(name: string): Promise<{ path: string }> {
    const r = await this.model.saveWeightsForSampler(name);
    if (!r.path) throw new Error("save_weights_for_sampler returned no path");
    this.samplingTarget = r.sampling_session_id ? { samplingSessionId: r.sampling_session_id } : { modelPath: r.path };
    return { path: r.path };
  }

  async saveState(name: string): Promise<{ path: string }> {
    return this.model.saveWeights(name, true);
  }

  async loadState(path: string): Promise<void> {
    await this.model.loadWeights(path, true);
    // Sample from the loaded weights from now on.
    const r = await this.model.saveWeightsForSampler();
    if (r.sampling_session_id) this.samplingTarget = { samplingSessionId: r.sampling_session_id };
  }
}

/**
 * One update's rows → the datums sent to the server, exactly: aggregation weights over all the rows
 * (buildDatums), then two savings that rely on the loss being a token sum — without KL/entropy
 * terms a datum whose advantages are all zero has zero gradient, and a datum that is a prefix of
 * another rides along inside it — then the server's reduction undone (applyServerReduction).
 */
export function prepareDatums(data: TrainingDatum[], loss: LossConfig, sem: ServerLossSemantics): { datums: Datum[]; responseTokens: number } {
  const built = buildDatums(data, { lossAgg: loss.lossAgg, weights: sem.weights });
  const regularised = (loss.klCoef !== 0 && sem.kl) || (loss.entropyCoef !== 0 && sem.entropy);
  const packed = packDatums(regularised ? built.datums : dropZeroAdvantage(built.datums));
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
export function buildDatums(
  data: TrainingDatum[],
  opts: { lossAgg: LossAgg; weights: ServerLossSemantics["weights"] },
): { datums: Datum[]; responseTokens: number } {
  const responseTokens = data.reduce((n, d) => n + d.responseTokens.length, 0);
  const w = aggregationWeights(
    data.map((d) => new Array<number>(d.responseTokens.length).fill(1)),
    opts.lossAgg,
  );
  const datums = data.map((d, i) => {
    const n = d.responseTokens.length;
    if (d.logprobs.length !== n || d.advantages.length !== n)
      throw new Error(`training datum ${i}: ${n} response tokens but ${d.logprobs.length} logprobs and ${d.advantages.length} advantages`);
    if (d.promptTokens.length === 0) throw new Error(`training datum ${i}: empty prompt`);
    const seq = [...d.promptTokens, ...d.responseTokens];
    const pad = d.promptTokens.length - 1; // input positions that predict prompt tokens
    const zeros = new Array<number>(pad).fill(0);
    const inputs: Datum["loss_fn_inputs"] = {
      target_tokens: { data: seq.slice(1), dtype: "int64" },
      logprobs: { data: [...zeros, ...d.logprobs], dtype: "float32" },
      advantages: { data: [...zeros, ...d.advantages.map((a, j) => a * w[i][j])], dtype: "float32" },
    };
    if (opts.weights === "aggregation") inputs.weights = { data: [...zeros, ...w[i]], dtype: "float32" };
    if (opts.weights === "mask") inputs.weights = { data: [...zeros, ...new Array<number>(n).fill(1)], dtype: "float32" };
    return { model_input: tokensInput(seq.slice(0, -1)), loss_fn_inputs: inputs };
  });
  return { datums, responseTokens };
}

const isActive = (d: Datum, i: number) => d.loss_fn_inputs.advantages.data[i] !== 0 || (d.loss_fn_inputs.weights?.data[i] ?? 0) !== 0;

/**
 * Drops datums with no non-zero advantage, unless that would drop all of them. Exact for the PG
 * losses when no KL / entropy term is on (their `weights` then scale nothing): such a datum adds
 * nothing to the gradient. Loss metrics (ratio, clip fraction) are then means over the trained tokens.
 */
export function dropZeroAdvantage(datums: Datum[]): Datum[] {
  const kept = datums.filter((d) => d.loss_fn_inputs.advantages.data.some((a) => a !== 0));
  return kept.length > 0 ? kept : datums;
}

/**
 * Folds each datum whose full sequence (inputs + last target) is a prefix of a longer datum's into
 * that datum, when their loss positions do not overlap. With causal attention the logits of the
 * shared positions are identical, and the loss is a token sum, so the gradient is unchanged; a
 * multi-turn conversation's act turns usually collapse into one sequence. Returns new datums.
 */
export function packDatums(datums: Datum[]): Datum[] {
  const full = (d: Datum) => [...d.model_input.chunks.flatMap((c) => c.tokens), d.loss_fn_inputs.target_tokens.data.at(-1)!];
  const items = datums
    .map((d) => ({ seq: full(d), d: structuredClone(d) }))
    .sort((a, b) => b.seq.length - a.seq.length);
  const kept: typeof items = [];
  for (const item of items) {
    const n = item.seq.length - 1; // loss positions of the shorter datum: 0..n-1
    const host = kept.find(
      (k) =>
        k.seq.length >= item.seq.length &&
        item.seq.every((t, i) => k.seq[i] === t) &&
        item.d.loss_fn_inputs.target_tokens.data.every((_, i) => !isActive(item.d, i) || !isActive(k.d, i)),
    );
    if (!host) {
      kept.push(item);
      continue;
    }
    const from = item.d.loss_fn_inputs;
    const into = host.d.loss_fn_inputs;
    for (let i = 0; i < n; i++) {
      if (!isActive(item.d, i)) continue;
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
      const W = (sent[k].loss_fn_inputs.weights?.data ?? []).reduce((a, b) => a + b, 0);
      total += s / Math.max(W, 1e-9) / sent.length;
    }
  });
  return total;
}
