/**
 * PolicyClient + TrainerClient (worker/engine/io.ts) on top of a Tinker-compatible node.
 *
 * Sampling: render the chat with the model's chat format → asample (tokens + logprobs) → decode.
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
  ChatMessage,
  ToolSchema,
} from "../engine/io";
import * as tinyChat from "../node/chat-format";
import { type Datum, TinkerClient, type TinkerModel, type TinkerClientOptions, tokensInput } from "../../lib/clients/tinker-client";

/** How a model's chat template turns messages into tokens and tokens into text. */
export interface ChatRenderer {
  renderPrompt(messages: ChatMessage[], tools?: ToolSchema[]): number[];
  decode(tokens: number[]): string;
  stopTokens: number[];
}

export const tinyGptRenderer: ChatRenderer = { renderPrompt: tinyChat.renderPrompt, decode: tinyChat.decode, stopTokens: tinyChat.stopTokens };

export interface TinkerPolicyOptions {
  baseUrl: string;
  apiKey?: string;
  /** Base model name on the node (e.g. "tiny-gpt"). */
  model: string;
  renderer?: ChatRenderer;
  /** Resume from a training checkpoint (tinker://…/weights/…) right after create_model. */
  resumeFrom?: string;
  client?: Partial<TinkerClientOptions>;
}

/** Metrics are reported as means over the active (response) tokens of the call. */
export class TinkerPolicy implements PolicyClient, TrainerClient {
  private samplingTarget: { samplingSessionId: string } | { modelPath: string } | { baseModel: string };
  private warned = new Set<string>();

  private constructor(
    readonly client: TinkerClient,
    readonly model: TinkerModel,
    readonly renderer: ChatRenderer,
    readonly contextLength: number | null,
    /** Loss-config extensions the node accepts (empty on hosted Tinker / SkyRL). */
    readonly extensions: Set<string>,
  ) {
    this.samplingTarget = { baseModel: model.baseModel };
  }

  static async create(opts: TinkerPolicyOptions): Promise<TinkerPolicy> {
    const client = new TinkerClient({ baseUrl: opts.baseUrl, apiKey: opts.apiKey, ...opts.client });
    await client.start(["envace"]);
    try {
      const caps = await client.capabilities();
      const entry = caps.supported_models.find((m) => m.model_name === opts.model);
      if (!entry) throw new Error(`node ${opts.baseUrl} does not serve '${opts.model}' (it serves: ${caps.supported_models.map((m) => m.model_name).join(", ")})`);
      const model = await client.createModel(opts.model);
      const policy = new TinkerPolicy(client, model, opts.renderer ?? tinyGptRenderer, entry.max_context_length ?? null, new Set(caps.node?.extensions ?? []));
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

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const promptTokens = this.renderer.renderPrompt(req.messages, req.tools);
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
      stop: this.renderer.stopTokens,
    });
    const seq = res.sequences[0];
    if (!seq) throw new Error("asample returned no sequence");
    if (!seq.logprobs || seq.logprobs.length !== seq.tokens.length) throw new Error("asample returned no per-token logprobs");
    return { text: this.renderer.decode(seq.tokens), promptTokens, tokens: seq.tokens, logprobs: seq.logprobs, finishReason: seq.stop_reason };
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    console.warn(`[tinker-policy] ${message}`);
  }

  async forwardBackward(data: TrainingDatum[], loss: LossConfig): Promise<{ metrics: Record<string, number> }> {
    if (data.length === 0) return { metrics: { tokens: 0 } };
    const built = buildDatums(data, { sendWeights: this.extensions.has("weights") });
    const responseTokens = built.responseTokens;
    // Exact savings (the loss is a token sum): without KL/entropy terms a datum whose advantages are
    // all zero has zero gradient, and a datum that is a prefix of another rides along inside it.
    const regularised = (loss.klCoef !== 0 && this.extensions.has("kl_coef")) || (loss.entropyCoef !== 0 && this.extensions.has("entropy_coef"));
    const datums = packDatums(regularised ? built.datums : dropZeroAdvantage(built.datums));
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
    const out = await this.model.forwardBackward(datums, loss.loss, loss.loss === "ppo" ? config : undefined);
    return { metrics: summarise(out.metrics, responseTokens) };
  }

  async optimStep(optim: OptimConfig): Promise<{ metrics: Record<string, number> }> {
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
 * TrainingDatum[] → Tinker datums with token-mean scaling: advantages (and weights, when sent)
 * are divided by the number of response tokens in the call.
 */
export function buildDatums(data: TrainingDatum[], opts: { sendWeights: boolean }): { datums: Datum[]; responseTokens: number } {
  const responseTokens = data.reduce((n, d) => n + d.responseTokens.length, 0);
  const scale = responseTokens > 0 ? 1 / responseTokens : 0;
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
      advantages: { data: [...zeros, ...d.advantages.map((a) => a * scale)], dtype: "float32" },
    };
    if (opts.sendWeights) inputs.weights = { data: [...zeros, ...new Array<number>(n).fill(scale)], dtype: "float32" };
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

/** Node metric sums → means over the response tokens. */
function summarise(m: Record<string, number>, responseTokens: number): Record<string, number> {
  const tokens = m["tokens:sum"] ?? responseTokens;
  const mean = (k: string) => (k in m && tokens > 0 ? m[k] / tokens : undefined);
  const out: Record<string, number> = { loss: m["loss:sum"] ?? NaN, tokens: responseTokens };
  const extra = { clip_frac: mean("clipped:sum"), ratio_mean: mean("ratio:sum"), kl: mean("kl:sum"), entropy: mean("entropy:sum") };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) out[k] = v;
  return out;
}
