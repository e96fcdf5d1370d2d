/**
 * Gradient worker thread for data-parallel forward_backward (see Trainer in train.ts).
 *
 * The tfjs wasm backend is single-threaded, so each worker runs its own tfjs instance. Per request
 * it rebuilds the current weights from the values sent, runs `computeShare` (the same loss code as
 * the main thread) over its micro-batches and replies with summed gradients, per-datum outputs and
 * metric sums. The frozen KL reference arrives once and is kept.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type ParamMap, disposeParams, switchBackend, tensorsFromValues } from "./model";
import { computeShare, paramNames } from "./train-batches";
import { TrainingInputError } from "./train-types";
import type { GradWorkerInit, GradWorkerReply, GradWorkerRequest } from "./train-workers";

const { cfg, backend } = workerData as GradWorkerInit;
const port = parentPort!;
const names = paramNames(cfg);
let reference: ParamMap | null = null;

const paramsFrom = (values: Float32Array[]): ParamMap => tensorsFromValues(cfg, new Map(names.map((n, i) => [n, values[i]])));

/** A buffer this thread owns outright, so it can be transferred rather than copied. */
const ownBuffer = (a: Float32Array): Float32Array => (a.byteOffset === 0 && a.byteLength === a.buffer.byteLength ? a : a.slice());

async function handle(req: GradWorkerRequest): Promise<GradWorkerReply> {
  let params: ParamMap | null = null;
  try {
    if (req.reference) {
      if (reference) disposeParams(reference);
      reference = paramsFrom(req.reference);
    }
    params = paramsFrom(req.params);
    const r = await computeShare(params, reference, cfg, req.microBatches, req.lossFn, req.lc, req.forwardOnly);
    const grads = r.grads ? r.grads.map((g) => ownBuffer(g.dataSync() as Float32Array)) : null;
    r.grads?.forEach((g) => g.dispose());
    return { id: req.id, kind: "ok", grads, outputs: r.outputs, metrics: r.metrics };
  } catch (err) {
    if (err instanceof TrainingInputError) return { id: req.id, kind: "refused", message: err.message };
    return { id: req.id, kind: "error", message: err instanceof Error ? err.message : String(err) };
  } finally {
    if (params) disposeParams(params);
  }
}

// A failed backend init rejects here and ends the worker with an 'error' event; the main thread
// then computes the share itself.
await switchBackend(backend);

// One request at a time, in arrival order (a reference update must land before the shares that need it).
let queue: Promise<void> = Promise.resolve();
port.on("message", (req: GradWorkerRequest) => {
  queue = queue.then(async () => {
    const reply = await handle(req);
    // Gradients are read back fresh for this reply: transfer them instead of copying again.
    const transfer = reply.kind === "ok" && reply.grads ? reply.grads.map((g) => g.buffer as ArrayBuffer) : [];
    port.postMessage(reply, transfer);
  });
});
