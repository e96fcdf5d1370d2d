/**
 * Training models: create_model (a new model on every call, as SkyRL tx), get_info, forward_backward and
 * forward (within the advertised chunk limits, 413 beyond; datums checked against the model's vocabulary
 * and context), optim_step and unload_model. Ops run in seq_id order through ./ordering.ts.
 */
import type { z } from "zod";
import { estimateDatumBytes } from "../../../lib/clients/tinker-proto";
import type { GPTConfig } from "../model";
import type { KlType } from "../loss";
import {
  MAX_TOKENS_PER_REQUEST,
  type TensorData,
  UserError,
  type adamParamsSchema,
  type createModelSchema,
  type fwdInputSchema,
  modelInputTokens,
} from "../protocol";
import { DEFAULT_LOSS_CONFIG, type LossConfig, type TrainDatum, Trainer } from "../train";
import { newFuture, settle } from "./futures";
import { submit, unloadModelNow } from "./ordering";
import { type ModelState, type NodeState, TOKENIZER_ID, baseModel, model, newId, session } from "./state";

export function createModel(st: NodeState, body: z.infer<typeof createModelSchema>): { request_id: string; model_id: string } {
  const s = session(st, body.session_id);
  const base = baseModel(st, body.base_model);
  s.modelSeq++;
  s.lastSeen = Date.now();
  const id = newId("model");
  const m: ModelState = {
    id,
    sessionId: s.id,
    base,
    trainer: new Trainer(base.cfg, base.values, base.params, { threads: st.opts.trainThreads, offMainThread: st.opts.trainOffMainThread }),
    nextSeq: 1,
    seen: new Map(),
    checkpoints: new Map(),
    held: new Map(),
    chain: Promise.resolve(),
    opsStarted: 0,
    ephemeral: [],
    unloaded: false,
  };
  st.models.set(id, m);
  const f = newFuture(st, "create_model");
  settle(st, f, { result: { type: "create_model", model_id: id, base_model: base.name } });
  return { request_id: f.id, model_id: id };
}

export function getInfo(st: NodeState, modelId: string) {
  const m = model(st, modelId);
  return {
    type: "get_info",
    model_id: m.id,
    model_name: m.base.name,
    is_lora: false,
    lora_rank: null,
    model_data: { arch: "tiny-gpt", model_name: m.base.name, tokenizer_id: TOKENIZER_ID },
    context_length: m.base.cfg.contextLength,
    config: m.base.cfg,
    optimizer_steps: m.trainer.optimizerSteps,
  };
}

export function unloadModel(st: NodeState, modelId: string) {
  return submit(st, modelId, undefined, "unload_model", null, async (m) => {
    unloadModelNow(st, m);
    return { type: "unload_model", model_id: m.id };
  });
}

export function forwardBackward(st: NodeState, modelId: string, seqId: number | undefined, input: z.infer<typeof fwdInputSchema>, forwardOnly: boolean) {
  const m = model(st, modelId);
  // Chunk limits as advertised in client/config (the SDK's defaults): a client must split bigger calls.
  if (input.data.length > st.opts.maxChunkDatums)
    throw new UserError(`request has ${input.data.length} datums; at most ${st.opts.maxChunkDatums} per request (client/config fwdbwd_max_chunk_len)`, 413, "too_large");
  const bytes = input.data.reduce((n, d) => n + estimatedDatumBytes(d), 0);
  if (bytes > st.opts.maxChunkBytes && input.data.length > 1)
    throw new UserError(`request is about ${bytes} bytes; at most ${st.opts.maxChunkBytes} per request (client/config fwdbwd_max_chunk_bytes_count)`, 413, "too_large");
  const datums = input.data.map((d, i) => toTrainDatum(d, i, m.base.cfg));
  const total = datums.reduce((n, d) => n + d.tokens.length, 0);
  if (total > MAX_TOKENS_PER_REQUEST) throw new UserError(`request has ${total} tokens; at most ${MAX_TOKENS_PER_REQUEST} per request`, 413, "too_large");
  const lc = toLossConfig(input.loss_fn_config ?? {});
  const only = forwardOnly || Boolean(input.forward_only);
  return submit(st, modelId, seqId, only ? "forward" : "forward_backward", input, async (ms) => {
    const r = await ms.trainer.forwardBackward(datums, input.loss_fn, lc, only);
    if (!only) st.stats.trainedTokens += total;
    return {
      loss_fn_output_type: "scalar",
      loss_fn_outputs: r.outputs.map((o) => ({
        logprobs: { data: o.logprobs, dtype: "float32", shape: [o.logprobs.length] },
        elementwise_loss: { data: o.elementwise_loss, dtype: "float32", shape: [o.elementwise_loss.length] },
      })),
      metrics: r.metrics,
    };
  });
}

export function optimStep(st: NodeState, modelId: string, seqId: number | undefined, adam: z.infer<typeof adamParamsSchema>) {
  return submit(st, modelId, seqId, "optim_step", adam, async (m) => {
    const metrics = m.trainer.optimStep({
      learningRate: adam.learning_rate,
      beta1: adam.beta1,
      beta2: adam.beta2,
      eps: adam.eps,
      weightDecay: adam.weight_decay,
      gradClipNorm: adam.grad_clip_norm,
    });
    st.stats.optimSteps++;
    return { type: "optim_step", metrics };
  });
}

/** The SDK's proto-size estimate of a datum (what fwdbwd_max_chunk_bytes_count limits). */
function estimatedDatumBytes(d: z.infer<typeof fwdInputSchema>["data"][number]): number {
  return estimateDatumBytes({
    tokens: d.model_input.chunks.reduce((n, c) => n + ("tokens" in c ? (c.tokens as number[]).length : 0), 0),
    tensors: Object.entries(d.loss_fn_inputs).map(([name, t]) => ({ length: t.data.length, dtype: t.dtype === "int64" || (!t.dtype && name === "target_tokens") ? "int64" : "float32" })),
  });
}

function tensorValues(t: TensorData | undefined, name: string, n: number, i: number): number[] | undefined {
  if (!t) return undefined;
  if (t.data.length !== n) throw new UserError(`datum ${i}: loss_fn_inputs.${name} has ${t.data.length} values, model_input has ${n} tokens`);
  return t.data;
}

const KNOWN_INPUTS = new Set(["target_tokens", "weights", "logprobs", "advantages"]);

function toTrainDatum(d: z.infer<typeof fwdInputSchema>["data"][number], i: number, cfg: GPTConfig): TrainDatum {
  const tokens = modelInputTokens(d.model_input, `datum ${i}`);
  const n = tokens.length;
  if (n > cfg.contextLength) throw new UserError(`datum ${i}: ${n} tokens exceed the context length ${cfg.contextLength}`);
  for (const key of Object.keys(d.loss_fn_inputs)) {
    if (!KNOWN_INPUTS.has(key)) throw new UserError(`datum ${i}: loss_fn_inputs.${key} is not supported (known: ${[...KNOWN_INPUTS].join(", ")})`);
  }
  const targets = tensorValues(d.loss_fn_inputs.target_tokens, "target_tokens", n, i);
  if (!targets) throw new UserError(`datum ${i}: loss_fn_inputs.target_tokens is required`);
  for (const [name, toks] of [["model_input", tokens], ["target_tokens", targets]] as const) {
    const bad = toks.find((t) => !Number.isInteger(t) || t < 0 || t >= cfg.vocabSize);
    if (bad !== undefined) throw new UserError(`datum ${i}: ${name} token ${bad} is outside the vocabulary 0..${cfg.vocabSize - 1}`, 400, "token_out_of_vocab");
  }
  return {
    tokens,
    targets,
    weights: tensorValues(d.loss_fn_inputs.weights, "weights", n, i),
    logprobs: tensorValues(d.loss_fn_inputs.logprobs, "logprobs", n, i),
    advantages: tensorValues(d.loss_fn_inputs.advantages, "advantages", n, i),
  };
}

/** loss_fn_config.kl_type codes (numbers on the wire) → estimators. */
const KL_TYPE_BY_CODE: Record<number, KlType> = { 1: "k1", 2: "k2", 3: "low_var_kl" };

function toLossConfig(c: NonNullable<z.infer<typeof fwdInputSchema>["loss_fn_config"]>): LossConfig {
  const lc: LossConfig = {
    clipLowThreshold: c.clip_low_threshold ?? DEFAULT_LOSS_CONFIG.clipLowThreshold,
    clipHighThreshold: c.clip_high_threshold ?? DEFAULT_LOSS_CONFIG.clipHighThreshold,
    dualClipThreshold: c.dual_clip_threshold ?? null,
    klCoef: c.kl_coef ?? 0,
    klType: KL_TYPE_BY_CODE[c.kl_type ?? 3],
    entropyCoef: c.entropy_coef ?? 0,
  };
  if (lc.clipLowThreshold > lc.clipHighThreshold) throw new UserError("clip_low_threshold must not exceed clip_high_threshold");
  return lc;
}
