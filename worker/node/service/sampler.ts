/**
 * Samplers and sampling sessions: the base model's sampler, samplers on saved or ephemeral weights
 * (loaded from disk on demand; 425 while a checkpoint is still being written), sampling sessions with
 * their own seq_id idempotency keys, and the batched sampling loop (rows queued per sampler, run in
 * batches of at most maxBatchRows so HTTP stays responsive).
 */
import { randomInt } from "node:crypto";
import type { z } from "zod";
import { encodeText } from "../../../lib/renderers/tiny-gpt/tokenizer";
import { checkpointExists, loadCheckpoint } from "../checkpoint";
import { type GPTConfig, type ParamMap, type SampledSequence, disposeParams, promptLogprobs, sampleRows, tensorsFromValues } from "../model";
import { type asampleSchema, UserError, modelInputTokens } from "../protocol";
import { detached } from "./futures";
import { modelDir, parseTinkerPath } from "./paths";
import { BASE_MODEL_NAME, type NodeState, type PendingSample, type SampleRequest, type Sampler, baseModel, hashPayload, newId, session } from "./state";

export function makeSampler(cfg: GPTConfig, params: ParamMap, baseModelName: string, modelPath: string | null, ownedParams: boolean): Sampler {
  return { id: newId("sampling"), cfg, params, baseModel: baseModelName, modelPath, ownedParams, queue: [], queuedRows: 0, running: false, retired: false };
}

function baseSampler(st: NodeState, name: string): Sampler {
  const key = `base:${name}`;
  let s = st.samplers.get(key);
  if (!s) {
    const b = baseModel(st, name);
    s = { ...makeSampler(b.cfg, b.params, b.name, null, false), id: key };
    st.samplers.set(key, s);
  }
  return s;
}

export function retireSampler(st: NodeState, s: Sampler): void {
  s.retired = true;
  for (const [id, rec] of st.samplingSessions) if (rec.sampler === s) st.samplingSessions.delete(id);
  st.samplers.delete(s.id);
  if (s.modelPath && st.persistentSamplers.get(s.modelPath) === s) st.persistentSamplers.delete(s.modelPath);
  if (!s.running) {
    for (const p of s.queue) p.reject(new UserError(`sampler ${s.id} was released`, 410));
    s.queue = [];
    if (s.ownedParams) disposeParams(s.params);
  }
}

/** A sampler for a tinker:// sampler path, loading it from disk when needed (425 while it is being written). */
async function pathSampler(st: NodeState, modelPath: string): Promise<Sampler> {
  const cached = st.persistentSamplers.get(modelPath);
  if (cached) return cached;
  const ref = parseTinkerPath(modelPath);
  if (st.models.get(ref.modelId)?.checkpoints.get(`${ref.kind}/${ref.name}`) === "pending")
    throw new UserError(`checkpoint ${modelPath} is still being created`, 425, "checkpoint_pending");
  const dir = modelDir(st, ref.modelId, ref.kind, ref.name);
  if (!(await checkpointExists(dir))) throw new UserError(`no weights at ${modelPath}`, 404, "unknown_model");
  const ck = await loadCheckpoint(dir);
  const base = typeof ck.meta.base_model === "string" && st.bases.has(ck.meta.base_model) ? ck.meta.base_model : BASE_MODEL_NAME;
  const again = st.persistentSamplers.get(modelPath);
  if (again) return again;
  const s = makeSampler(ck.config, tensorsFromValues(ck.config, ck.weights), base, modelPath, true);
  st.persistentSamplers.set(modelPath, s);
  st.samplers.set(s.id, s);
  return s;
}

/** Registers a sampling session on a sampler; its id is what asample's sampling_session_id names. */
export function openSamplingSession(st: NodeState, sampler: Sampler, id = newId("sampling")): string {
  st.samplingSessions.set(id, { id, sampler, seen: new Map() });
  return id;
}

export async function createSamplingSession(st: NodeState, sessionId: string, baseModelName: string | null | undefined, modelPath: string | null | undefined): Promise<{ sampling_session_id: string }> {
  const s = session(st, sessionId);
  s.samplingSeq++;
  const sampler = baseModelName ? baseSampler(st, baseModelName) : await pathSampler(st, modelPath!);
  return { sampling_session_id: openSamplingSession(st, sampler) };
}

export function getSampler(st: NodeState, id: string) {
  const s = st.samplingSessions.get(id)?.sampler ?? st.samplers.get(id);
  if (!s) throw new UserError(`unknown sampler '${id}'`, 404, "unknown_sampler");
  return { sampler_id: s.id, base_model: s.baseModel, model_path: s.modelPath };
}

/**
 * Resolves what to sample from: a sampling session id, a tinker:// path, a base model name,
 * or a published persistent sampler name (used by the OpenAI endpoint's `model`).
 */
export async function resolveSampler(
  st: NodeState,
  ref: { samplingSessionId?: string | null; modelPath?: string | null; baseModel?: string | null; name?: string | null },
): Promise<Sampler> {
  if (ref.samplingSessionId) {
    const rec = st.samplingSessions.get(ref.samplingSessionId);
    if (!rec || rec.sampler.retired) throw new UserError(`unknown or expired sampling_session_id '${ref.samplingSessionId}'`, 404, "unknown_sampler");
    return rec.sampler;
  }
  if (ref.modelPath) return pathSampler(st, ref.modelPath);
  if (ref.baseModel) return baseSampler(st, ref.baseModel);
  if (ref.name) {
    if (st.bases.has(ref.name)) return baseSampler(st, ref.name);
    if (ref.name.startsWith("tinker://")) return pathSampler(st, ref.name);
    const published = st.publishedNames.get(ref.name);
    if (published) return pathSampler(st, published);
    const s = st.samplers.get(ref.name);
    if (s) return s;
    throw new UserError(`unknown model '${ref.name}'`, 404, "model_not_found");
  }
  throw new UserError("give one of sampling_session_id, model_path or base_model");
}

/** Samples `numSamples` continuations of one prompt. Row i uses seed + i. */
export function sample(st: NodeState, sampler: Sampler, req: SampleRequest): Promise<SampledSequence[]> {
  const V = sampler.cfg.vocabSize;
  const bad = req.prompt.find((t) => !Number.isInteger(t) || t < 0 || t >= V);
  if (bad !== undefined) throw new UserError(`prompt token ${bad} is outside the vocabulary 0..${V - 1}`, 400, "token_out_of_vocab");
  if (req.prompt.length === 0) throw new UserError("prompt is empty");
  if (req.prompt.length >= sampler.cfg.contextLength)
    throw new UserError(`prompt has ${req.prompt.length} tokens; the context length is ${sampler.cfg.contextLength}`, 400, "context_length_exceeded");
  const { stopTokens, stopSequences } = parseStop(req.stop, V);
  if (sampler.queuedRows + req.numSamples > st.opts.maxQueuedRows) throw new UserError("sampling queue is full; retry later", 429, "rate_limited");
  const seed = req.seed ?? randomInt(0, 2 ** 31 - 1);
  const rows = Array.from({ length: req.numSamples }, (_, i) => ({
    prompt: req.prompt,
    options: { maxTokens: req.maxTokens, temperature: req.temperature, topP: req.topP, topK: req.topK, stopTokens, stopSequences, seed: seed + i },
  }));
  return new Promise<SampledSequence[]>((resolve, reject) => {
    sampler.queue.push({ rows, resolve, reject });
    sampler.queuedRows += rows.length;
    void runSampler(st, sampler);
  });
}

async function runSampler(st: NodeState, s: Sampler): Promise<void> {
  if (s.running) return;
  s.running = true;
  try {
    // Let requests that arrive in the same tick join the batch.
    await new Promise((r) => setImmediate(r));
    while (s.queue.length > 0) {
      const batch: PendingSample[] = [];
      let rows = 0;
      while (s.queue.length > 0 && (batch.length === 0 || rows + s.queue[0].rows.length <= st.opts.maxBatchRows)) {
        const p = s.queue.shift()!;
        batch.push(p);
        rows += p.rows.length;
      }
      s.queuedRows -= rows;
      try {
        const out = await sampleRows(s.params, s.cfg, batch.flatMap((p) => p.rows));
        let i = 0;
        for (const p of batch) {
          const seqs = out.slice(i, i + p.rows.length);
          i += p.rows.length;
          st.stats.sampledTokens += seqs.reduce((n, q) => n + q.tokens.length, 0);
          p.resolve(seqs);
        }
      } catch (e) {
        for (const p of batch) p.reject(e as Error);
      }
    }
  } finally {
    s.running = false;
    if (s.retired) retireSampler(st, s);
  }
}

/**
 * Tinker asample: returns a future id. Under a sampling session, (session, seq_id) is an idempotency
 * key: a retry with the same payload gets the original request_id, another payload gets 409.
 */
export async function asample(st: NodeState, body: z.infer<typeof asampleSchema>): Promise<{ request_id: string }> {
  const rec = body.sampling_session_id ? st.samplingSessions.get(body.sampling_session_id) : undefined;
  const hash = rec ? hashPayload(body) : "";
  if (rec && body.seq_id != null) {
    const prev = rec.seen.get(body.seq_id);
    if (prev) {
      if (prev.hash === hash) return { request_id: prev.requestId };
      throw new UserError(`seq_id ${body.seq_id} of sampling session ${rec.id} was already used by a different request`, 409, "seq_id_conflict");
    }
  }
  const sampler = await resolveSampler(st, { samplingSessionId: body.sampling_session_id, modelPath: body.model_path, baseModel: body.base_model });
  const prompt = modelInputTokens(body.prompt, "prompt");
  const sp = body.sampling_params;
  const run = sample(st, sampler, {
    prompt,
    numSamples: body.num_samples,
    maxTokens: sp.max_tokens,
    temperature: sp.temperature,
    topP: sp.top_p,
    topK: sp.top_k,
    stop: sp.stop,
    seed: sp.seed,
  });
  // Scored now (sample() has validated the prompt), while this sampler's weights are certainly alive.
  const scored = body.prompt_logprobs ? promptLogprobs(sampler.params, sampler.cfg, prompt) : null;
  const reply = detached(st, "sample", async () => {
    const seqs = await run;
    return { type: "sample", sequences: seqs.map((q) => ({ stop_reason: q.stopReason, tokens: q.tokens, logprobs: q.logprobs })), prompt_logprobs: scored };
  });
  if (rec && body.seq_id != null) {
    rec.seen.set(body.seq_id, { requestId: reply.request_id, hash });
    if (rec.seen.size > 10_000) rec.seen.delete(rec.seen.keys().next().value!);
  }
  return reply;
}

function parseStop(stop: SampleRequest["stop"], vocab: number): { stopTokens: number[]; stopSequences: number[][] } {
  if (stop === null || stop === undefined) return { stopTokens: [], stopSequences: [] };
  const list = typeof stop === "string" ? [stop] : stop;
  const stopTokens: number[] = [];
  const stopSequences: number[][] = [];
  for (const s of list) {
    if (typeof s === "number") {
      if (!Number.isInteger(s) || s < 0 || s >= vocab) throw new UserError(`stop token ${s} is outside the vocabulary 0..${vocab - 1}`, 400, "token_out_of_vocab");
      stopTokens.push(s);
    } else {
      const bytes = encodeText(s);
      if (bytes.length === 1) stopTokens.push(bytes[0]);
      else if (bytes.length > 1) stopSequences.push(bytes);
    }
  }
  return { stopTokens, stopSequences };
}
