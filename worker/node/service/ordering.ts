/**
 * The seq_id rules of a model's ops: every op that carries a seq_id runs strictly in seq_id order (first
 * is 1). A request may arrive up to `seqWindow` ahead of the next expected seq_id; it is held until the
 * gap fills (or failed after `gapTimeoutMs`). (model_id, seq_id) is an idempotency key: a retry with the
 * same payload gets the original request_id, a different payload gets HTTP 409. A request rejected at
 * submission (4xx) does not consume its seq_id. Each model's ops form one promise chain.
 */
import { UserError } from "../protocol";
import { newFuture, settle } from "./futures";
import { retireSampler } from "./sampler";
import { type ModelState, type NodeState, hashPayload, model } from "./state";

/**
 * Submits an op of a model under the seq_id rules. `payload` is hashed for idempotency; `run`
 * executes in order on the model's chain.
 */
export function submit(
  st: NodeState,
  modelId: string,
  seqId: number | undefined,
  type: string,
  payload: unknown,
  run: (m: ModelState) => Promise<unknown>,
  /** Checks that need the model and run after the idempotent-retry check; throwing rejects without consuming the seq_id. */
  precheck?: (m: ModelState) => void,
) {
  const m = model(st, modelId);
  const session = st.sessions.get(m.sessionId);
  if (session) session.lastSeen = Date.now();
  const hash = hashPayload([type, payload]);
  if (seqId) {
    const prev = m.seen.get(seqId);
    if (prev) {
      if (prev.hash === hash) return { request_id: prev.requestId, model_id: m.id };
      throw new UserError(`seq_id ${seqId} of model ${m.id} was already used by a different request`, 409, "seq_id_conflict");
    }
    if (seqId < m.nextSeq) throw new UserError(`seq_id ${seqId} of model ${m.id} is behind the next expected seq_id ${m.nextSeq}`, 409, "seq_id_conflict");
    if (seqId > m.nextSeq + st.opts.seqWindow)
      throw new UserError(`seq_id ${seqId} is out of order: model ${m.id} expects seq_id ${m.nextSeq} next (at most ${st.opts.seqWindow} ahead may be queued)`, 400, "seq_id_out_of_order");
  }
  precheck?.(m);
  const f = newFuture(st, type);
  const start = () => {
    m.chain = m.chain.then(async () => {
      if (m.unloaded) return settle(st, f, { error: new UserError(`model ${m.id} was unloaded`, 404) });
      m.opsStarted++;
      try {
        settle(st, f, { result: await run(m) });
      } catch (error) {
        settle(st, f, { error });
      }
    });
  };
  if (!seqId) {
    start();
    return { request_id: f.id, model_id: m.id };
  }
  m.seen.set(seqId, { requestId: f.id, hash });
  if (seqId === m.nextSeq) {
    start();
    m.nextSeq++;
    // Release held successors in order.
    for (let next = m.held.get(m.nextSeq); next; next = m.held.get(m.nextSeq)) {
      clearTimeout(next.timer);
      m.held.delete(m.nextSeq);
      next.start();
      m.nextSeq++;
    }
  } else {
    const timer = setTimeout(() => {
      m.held.delete(seqId);
      m.seen.delete(seqId);
      settle(st, f, { error: new UserError(`seq_id ${seqId} waited ${st.opts.gapTimeoutMs} ms for seq_id ${m.nextSeq}, which never arrived`) });
    }, st.opts.gapTimeoutMs);
    timer.unref();
    m.held.set(seqId, { start, timer });
  }
  return { request_id: f.id, model_id: m.id };
}

/** Drops a model now: its held ops, its trainer, its ephemeral samplers. */
export function unloadModelNow(st: NodeState, m: ModelState): void {
  if (m.unloaded) return;
  m.unloaded = true;
  for (const h of m.held.values()) clearTimeout(h.timer);
  m.held.clear();
  m.trainer.dispose();
  for (const id of m.ephemeral) {
    const s = st.samplers.get(id);
    if (s) retireSampler(st, s);
  }
  st.models.delete(m.id);
}
