/**
 * Model operations of one training model: forward_backward (chunked, checked first), forward, optim_step,
 * the saves (sampler weights, ephemeral or named, and the training state) with the re-issue of a name that
 * collides after a lost reply, load_weights, get_info and unload. Every op takes its seq_id from the model's
 * sequencer (./sequencer.ts).
 */
import type { z } from "zod";
import { type ClientConfig, type ForwardBackwardOutput, getInfoReply } from "../tinker-wire";
import { chunkDatums, encodeChunk, mergeChunkMetrics, yieldToLoop } from "./chunking";
import { datumAsJson, validateDatum } from "./datums";
import { TinkerError } from "./errors";
import { type Futures, RESULT, type ResultKind } from "./futures";
import { type SampleHost, SamplingSession } from "./sampling";
import { SeqIdSequencer } from "./sequencer";
import type { Transport } from "./transport";
import type { AdamParams, Datum, LossFn, WireFormat } from "./types";

/** What a model needs of its client (TinkerClient is the one implementation). */
export interface ModelHost extends SampleHost {
  readonly nodeName: string;
  readonly futureDeadlineMs: number;
  readonly config: ClientConfig;
  readonly wire: WireFormat;
  submit: Futures["submit"];
  waitFuture: Futures["wait"];
  call: Transport["call"];
  warn(message: string): void;
  nextSamplingSeqId(): number;
}

/** A training model: every op gets the next seq_id when it is posted, and ops are posted in call order. */
export class TinkerModel {
  private readonly seq: SeqIdSequencer;
  /** Request bodies posted (bytes), for benchmarks and diagnostics. */
  readonly sentBodies: number[] = [];
  private saveAttempt = 0;

  constructor(
    readonly client: ModelHost,
    readonly modelId: string,
    readonly baseModel: string,
  ) {
    this.seq = new SeqIdSequencer(modelId, client.nodeName);
  }

  /** seq_id the next op will carry. */
  get pendingSeqId(): number {
    return this.seq.pending;
  }

  /** Posts one future-returning op with the next seq_id and waits for its result. */
  private async op<T>(path: string, body: (seqId: number) => Record<string, unknown>, kind: ResultKind<T>): Promise<T> {
    const deadline = Date.now() + this.client.futureDeadlineMs;
    const { requestId } = await this.seq.enqueue(async (take, commit) => {
      const seqId = take();
      const r = await this.client.submit(path, { json: { ...body(seqId), model_id: this.modelId, seq_id: seqId } });
      commit();
      return r;
    });
    return this.client.waitFuture(requestId, kind, { deadline, what: `${path} (model ${this.modelId})` });
  }

  /**
   * forward_backward in chunks within the server's limits (one seq_id each, posted in order), outputs
   * concatenated, metrics merged. Every datum is checked first (see validateDatum).
   */
  forwardBackward(data: Datum[], lossFn: LossFn, lossFnConfig?: Record<string, number> | null, opts: { forwardOnly?: boolean } = {}): Promise<ForwardBackwardOutput> {
    if (data.length === 0) return Promise.reject(new TinkerError("forward_backward: no datums", null, "user", false, "bad_datum", "input"));
    // A datum that fails the check rejects the call before its turn posts anything.
    const deadline = Date.now() + this.client.futureDeadlineMs;
    const forwardOnly = opts.forwardOnly ?? false;
    // Every datum is checked before anything is posted (nothing half-sent), in slices so a big step
    // does not hold the event loop.
    const checked = (async () => {
      for (let i = 0; i < data.length; i++) {
        validateDatum(data[i], i, lossFn);
        if (i % 16 === 15) await yieldToLoop();
      }
      return chunkDatums(data, this.client.config);
    })();
    // Take the model's turn now (call order = seq_id order), post once the check passed.
    const submitted = this.seq.enqueue(async (take, commit) => {
      const chunks = await checked;
      const ids: string[] = [];
      for (const chunk of chunks) {
        const seqId = take();
        const body = await encodeChunk(this.client.wire, this.modelId, chunk, seqId, lossFn, lossFnConfig ?? null, forwardOnly);
        this.sentBodies.push("proto" in body ? body.proto.byteLength : Buffer.byteLength(JSON.stringify(body.json)));
        const r = await this.client.submit("forward_backward", body);
        commit();
        ids.push(r.requestId);
      }
      return { ids, sizes: chunks.map((c) => c.length) };
    });
    return submitted.then(async ({ ids, sizes }) => {
      const outs = await Promise.all(ids.map((id) => this.client.waitFuture(id, RESULT.forwardBackward, { deadline, what: `forward_backward (model ${this.modelId})` })));
      return {
        loss_fn_output_type: outs[0]?.loss_fn_output_type ?? "",
        loss_fn_outputs: outs.flatMap((o) => o.loss_fn_outputs),
        metrics: mergeChunkMetrics(outs.map((o, i) => ({ metrics: o.metrics, datums: sizes[i] }))),
      };
    });
  }


  /** Forward pass only (no gradient): forward_backward with forward_only on the protobuf wire, /forward on JSON. */
  forward(data: Datum[], lossFn: LossFn, lossFnConfig?: Record<string, number> | null): Promise<ForwardBackwardOutput> {
    if (this.client.wire === "protobuf") return this.forwardBackward(data, lossFn, lossFnConfig, { forwardOnly: true });
    data.forEach((d, i) => validateDatum(d, i, lossFn));
    return this.op("forward", () => ({ type: "forward", forward_input: { data: data.map(datumAsJson), loss_fn: lossFn, loss_fn_config: lossFnConfig ?? null } }), RESULT.forwardBackward);
  }

  optimStep(adam: AdamParams): Promise<{ metrics?: Record<string, number> | null }> {
    return this.op("optim_step", () => ({ type: "optim_step", adam_params: adam }), RESULT.optimStep);
  }

  /**
   * A save whose name (or ephemeral checkpoint id) collides: on SkyRL tx a save retried after a lost
   * reply gets 409 (the first attempt created the checkpoint row). Re-issue under a fresh name with the
   * same seq_id (servers that check the name before taking the seq_id), then with the next seq_id
   * (SkyRL, where the lost attempt consumed it).
   */
  private async save<T>(path: string, body: (seqId: number, attempt: number) => Record<string, unknown>, kind: ResultKind<T>): Promise<T> {
    const deadline = Date.now() + this.client.futureDeadlineMs;
    const { requestId } = await this.seq.enqueue(async (take, commit) => {
      let seqId = take();
      for (let attempt = 0; ; attempt++) {
        try {
          const r = await this.client.submit(path, { json: { ...body(seqId, attempt), model_id: this.modelId, seq_id: seqId } });
          commit();
          return r;
        } catch (e) {
          const err = e as TinkerError;
          if (!(err instanceof TinkerError) || err.status !== 409 || attempt >= 2) throw e;
          this.client.warn(`node "${this.client.nodeName}": ${path} name taken (${err.message}); re-issuing under a fresh name`);
          if (attempt === 1) seqId = take();
        }
      }
    });
    return this.client.waitFuture(requestId, kind, { deadline, what: `${path} (model ${this.modelId})` });
  }

  /** Ephemeral publication for sampling (what RL loops use): returns a sampling session on the new weights. */
  async saveWeightsForSamplerEphemeral(): Promise<SamplingSession> {
    const r = await this.save("save_weights_for_sampler", () => ({ type: "save_weights_for_sampler", sampling_session_seq_id: this.client.nextSamplingSeqId() }), RESULT.saveForSampler);
    if (!r.sampling_session_id) throw new TinkerError(`node "${this.client.nodeName}": save_weights_for_sampler returned no sampling_session_id`, 200, "server", false, "bad_reply", "protocol");
    return new SamplingSession(this.client, r.sampling_session_id);
  }

  /** Persistent publication under `name`; returns the tinker:// sampler path. */
  async saveWeightsForSampler(name: string): Promise<{ path: string }> {
    const r = await this.save("save_weights_for_sampler", (_, attempt) => ({ type: "save_weights_for_sampler", path: this.attemptName(name, attempt) }), RESULT.saveForSampler);
    if (!r.path) throw new TinkerError(`node "${this.client.nodeName}": save_weights_for_sampler returned no path`, 200, "server", false, "bad_reply", "protocol");
    return { path: r.path };
  }

  /** Training state (weights + optimizer) under `name`. */
  saveWeights(name: string): Promise<{ path: string }> {
    return this.save("save_weights", (_, attempt) => ({ type: "save_weights", path: this.attemptName(name, attempt) }), RESULT.saveWeights);
  }

  private attemptName(name: string, attempt: number): string {
    if (attempt === 0) return name;
    this.saveAttempt++;
    return `${name.slice(0, 240)}-r${this.saveAttempt}`;
  }

  /** load_weights: allowed only as a model's first request (hosted Tinker, SkyRL tx, the embedded node). */
  loadWeights(path: string, optimizer = true): Promise<{ path?: string | null }> {
    if (this.seq.pending !== 1) return Promise.reject(new TinkerError(`load_weights must be the first request of model ${this.modelId}; create a new model to load ${path}`, null, "user", false, "bad_params", "input"));
    return this.op("load_weights", () => ({ type: "load_weights", path, optimizer }), RESULT.loadWeights);
  }

  getInfo(): Promise<z.infer<typeof getInfoReply>> {
    return this.client.call("POST", "get_info", { json: { type: "get_info", model_id: this.modelId } }, getInfoReply);
  }

  async unload(): Promise<void> {
    const r = await this.client.submit("unload_model", { json: { type: "unload_model", model_id: this.modelId } });
    await this.client.waitFuture(r.requestId, RESULT.unload, { what: `unload_model (model ${this.modelId})` });
  }
}
