/**
 * Gradient worker threads for data-parallel forward_backward: the messages exchanged with ./grad-worker.ts,
 * the thread count (ENVACE_NODE_TRAIN_THREADS), and one persistent worker with its pending requests.
 */
import os from "node:os";
import { Worker } from "node:worker_threads";
import { z } from "zod";
import type { GPTConfig } from "./model";
import type { IndexedDatum } from "./train-batches";
import type { DatumOutput, LossConfig, LossFnName } from "./train-types";

/** workerData of a gradient worker. */
export interface GradWorkerInit {
  cfg: GPTConfig;
  /** tfjs backend of the main thread, so both sides compute the same way. */
  backend: string;
}

export interface GradWorkerRequest {
  id: number;
  /** Current weights in paramNames(cfg) order. */
  params: Float32Array[];
  /** The frozen KL reference, sent once per worker (the worker keeps it). */
  reference?: Float32Array[];
  microBatches: IndexedDatum[][];
  lossFn: LossFnName;
  lc: LossConfig;
  forwardOnly: boolean;
}

export type GradWorkerReply =
  | { id: number; kind: "ok"; grads: Float32Array[] | null; outputs: Array<[number, DatumOutput]>; metrics: Record<string, number> }
  /** A TrainingInputError (e.g. a non-finite loss): the whole call is refused, as on the main thread. */
  | { id: number; kind: "refused"; message: string }
  /** Anything else: the main thread computes the share itself. */
  | { id: number; kind: "error"; message: string };

/** ENVACE_NODE_TRAIN_THREADS as written in the environment (main.ts validates it with the rest of its env). */
export const trainThreadsSchema = z.coerce.number().int().min(1).max(64);

/** Threads per forward_backward: ENVACE_NODE_TRAIN_THREADS, else min(2, available cores). 1 disables the workers. */
export function defaultTrainThreads(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.ENVACE_NODE_TRAIN_THREADS;
  if (raw === undefined || raw === "") return Math.min(2, os.availableParallelism());
  const parsed = trainThreadsSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`ENVACE_NODE_TRAIN_THREADS must be an integer from 1 to 64, got '${raw}'`);
  return parsed.data;
}

/** A persistent worker thread that computes shares of forward_backward calls. */
export class GradWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (r: GradWorkerReply) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  /** Set once the worker crashed, failed to start or was terminated; it takes no more requests. */
  failure: Error | null = null;
  hasReference = false;
  readonly exited: Promise<void>;

  constructor(init: GradWorkerInit) {
    const entry = new URL("./grad-worker.ts", import.meta.url).href;
    // Node 20 does not apply tsx's --import hooks to a worker's TypeScript entry (privatenumber/tsx#354)
    // and vitest workers have no TS loader at all, so the worker registers tsx before importing its entry.
    const tsxApi = import.meta.resolve("tsx/esm/api");
    const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
    this.worker = new Worker(bootstrap, { eval: true, workerData: init });
    // An idle worker must not keep the process alive; it is ref'd only while a request is pending.
    this.worker.unref();
    this.worker.on("message", (reply: GradWorkerReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.worker.unref();
      p.resolve(reply);
    });
    this.worker.on("error", (err) => this.fail(err instanceof Error ? err : new Error(String(err))));
    this.exited = new Promise((resolve) =>
      this.worker.once("exit", (code) => {
        this.fail(new Error(`gradient worker exited with code ${code}`));
        resolve();
      }),
    );
  }

  run(req: Omit<GradWorkerRequest, "id">): Promise<GradWorkerReply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ ...req, id } satisfies GradWorkerRequest);
    });
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  terminate(): Promise<void> {
    this.fail(new Error("gradient worker terminated"));
    void this.worker.terminate();
    return this.exited;
  }
}

export const MAX_WORKER_FAILURES = 3;

