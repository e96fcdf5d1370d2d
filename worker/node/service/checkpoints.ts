/**
 * Checkpoints, with the contracts of the strictest real server (SkyRL tx): a name is reserved when the save
 * is submitted (409 on a duplicate, even on a retry: the first attempt took it); sampler weights are
 * published under a tinker:// path (or kept as an ephemeral snapshot, a few per model); load_weights is
 * refused (400) once a model has any request, including a retry of the load itself; a pending checkpoint
 * answers 425 to a delete (and to sampling, ./sampler.ts).
 */
import { promises as fs } from "node:fs";
import type { z } from "zod";
import { checkpointExists, loadCheckpoint, saveCheckpoint } from "../checkpoint";
import { UserError, type loadWeightsSchema, type saveWeightsForSamplerSchema, type saveWeightsSchema } from "../protocol";
import { submit } from "./ordering";
import { modelDir, parseTinkerPath } from "./paths";
import { makeSampler, openSamplingSession, retireSampler } from "./sampler";
import { type ModelState, type NodeState, model } from "./state";

/** Takes a checkpoint name at submission (SkyRL creates its checkpoint row there): a duplicate is 409. */
function reserveCheckpoint(m: ModelState, kind: "weights" | "sampler_weights", name: string): void {
  const key = `${kind}/${name}`;
  if (m.checkpoints.has(key)) throw new UserError(`checkpoint '${name}' already exists for model ${m.id}`, 409, "checkpoint_exists");
  m.checkpoints.set(key, "pending");
}

/** Runs a checkpoint write, recording whether it finished (sampling from a pending one answers 425). */
async function writing<T>(m: ModelState, kind: "weights" | "sampler_weights", name: string, write: () => Promise<T>): Promise<T> {
  try {
    const out = await write();
    m.checkpoints.set(`${kind}/${name}`, "done");
    return out;
  } catch (e) {
    m.checkpoints.set(`${kind}/${name}`, "failed");
    throw e;
  }
}

export function saveWeightsForSampler(st: NodeState, body: z.infer<typeof saveWeightsForSamplerSchema>) {
  const session = st.sessions.get(model(st, body.model_id).sessionId);
  const name = body.path;
  return submit(
    st,
    body.model_id,
    body.seq_id,
    "save_weights_for_sampler",
    body,
    async (m) => {
      const params = m.trainer.snapshot();
      if (name) {
        const tinkerPath = `tinker://${m.id}/sampler_weights/${name}`;
        await writing(m, "sampler_weights", name, () =>
          saveCheckpoint(modelDir(st, m.id, "sampler_weights", name), m.base.cfg, m.trainer.weightValues(), null, {
            base_model: m.base.name,
            model_id: m.id,
            kind: "sampler_weights",
            optimizer_steps: m.trainer.optimizerSteps,
          }),
        );
        const old = st.persistentSamplers.get(tinkerPath);
        if (old) retireSampler(st, old);
        const sampler = makeSampler(m.base.cfg, params, m.base.name, tinkerPath, true);
        st.persistentSamplers.set(tinkerPath, sampler);
        st.samplers.set(sampler.id, sampler);
        st.publishedNames.set(name, tinkerPath);
        return { type: "save_weights_for_sampler", path: tinkerPath, sampling_session_id: openSamplingSession(st, sampler) };
      }
      const sampler = makeSampler(m.base.cfg, params, m.base.name, null, true);
      st.samplers.set(sampler.id, sampler);
      m.ephemeral.push(sampler.id);
      while (m.ephemeral.length > st.opts.ephemeralSamplersPerModel) {
        const evict = st.samplers.get(m.ephemeral.shift()!);
        if (evict) retireSampler(st, evict);
      }
      if (session) session.samplingSeq++;
      return { type: "save_weights_for_sampler", path: null, sampling_session_id: openSamplingSession(st, sampler, sampler.id) };
    },
    (m) => {
      if (name) reserveCheckpoint(m, "sampler_weights", name);
    },
  );
}

export function saveWeights(st: NodeState, body: z.infer<typeof saveWeightsSchema>) {
  return submit(
    st,
    body.model_id,
    body.seq_id,
    "save_weights",
    body,
    (m) =>
      writing(m, "weights", body.path, async () => {
        await saveCheckpoint(modelDir(st, m.id, "weights", body.path), m.base.cfg, m.trainer.weightValues(), m.trainer.optimizerState(), {
          base_model: m.base.name,
          model_id: m.id,
          kind: "weights",
          optimizer_steps: m.trainer.optimizerSteps,
        });
        return { type: "save_weights", path: `tinker://${m.id}/weights/${body.path}` };
      }),
    (m) => reserveCheckpoint(m, "weights", body.path),
  );
}

/**
 * load_weights is allowed only as a model's first request (hosted Tinker and SkyRL tx). As on SkyRL,
 * a retry of the load itself is refused too: the first attempt already counts as a request.
 */
export function loadWeights(st: NodeState, body: z.infer<typeof loadWeightsSchema>) {
  const m = model(st, body.model_id);
  if (m.seen.size > 0 || m.opsStarted > 0 || m.nextSeq !== 1)
    throw new UserError(`load_weights is only allowed as the first request of a model (model ${m.id} already has requests); create a new model to load a checkpoint`, 400, "load_not_first");
  const ref = parseTinkerPath(body.path);
  if (ref.kind !== "weights") throw new UserError(`load_weights needs a training checkpoint (tinker://<model_id>/weights/<name>), got ${body.path}`);
  return submit(st, body.model_id, body.seq_id, "load_weights", body, async (ms) => {
    const dir = modelDir(st, ref.modelId, ref.kind, ref.name);
    if (!(await checkpointExists(dir))) throw new UserError(`checkpoint ${body.path} does not exist`, 404);
    const ck = await loadCheckpoint(dir, { optimizer: body.optimizer });
    if (JSON.stringify(ck.config) !== JSON.stringify(ms.base.cfg)) throw new UserError(`checkpoint ${body.path} has a different model config than ${ms.base.name}`);
    ms.trainer.load(ck.weights, body.optimizer ? ck.optimizer : undefined);
    return { type: "load_weights", path: body.path, model_id: ms.id };
  });
}

/** Deletes a finished checkpoint (DELETE /training_runs/{model}/checkpoints/{kind}/{name}). */
export async function deleteCheckpoint(st: NodeState, modelId: string, kind: "weights" | "sampler_weights", name: string): Promise<void> {
  const m = st.models.get(modelId);
  const state = m?.checkpoints.get(`${kind}/${name}`);
  if (state === "pending") throw new UserError("checkpoint is still being created", 425, "checkpoint_pending");
  const dir = modelDir(st, modelId, kind, name);
  if (!(await checkpointExists(dir))) throw new UserError(`checkpoint not found: ${modelId}/${kind}/${name}`, 404, "not_found");
  await fs.rm(dir, { recursive: true, force: true });
  m?.checkpoints.delete(`${kind}/${name}`);
  if (kind === "sampler_weights") {
    const tinkerPath = `tinker://${modelId}/sampler_weights/${name}`;
    const s = st.persistentSamplers.get(tinkerPath);
    if (s) retireSampler(st, s);
    if (st.publishedNames.get(name) === tinkerPath) st.publishedNames.delete(name);
  }
}
