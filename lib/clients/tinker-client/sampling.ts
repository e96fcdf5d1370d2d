/**
 * Sampling: a sampling session with its own seq_id counter from 0 (asample requires one on SkyRL tx and the
 * embedded node), at most client/config's sample_max_concurrent_requests samples in flight (the SDK's
 * limit), validated sampling parameters, and an asample resubmitted when the node says its future is gone.
 */
import type { ClientConfig, SampleResponse } from "../tinker-wire";
import { tokensInput } from "./datums";
import { TinkerError } from "./errors";
import { type Futures, RESULT } from "./futures";
import type { SampleExtras, SamplingParams } from "./types";

/** What a sampling session samples through (the client). */
export interface SampleHost {
  sampleIn(session: SamplingSession, prompt: number[], params: SamplingParams, numSamples: number, signal?: AbortSignal, extra?: SampleExtras): Promise<SampleResponse>;
}

/** A sampling session: its own seq_id counter from 0 (asample requires one on SkyRL tx and the embedded node). */
export class SamplingSession {
  private seq = 0;
  constructor(
    readonly client: SampleHost,
    readonly id: string,
  ) {}

  takeSeq(): number {
    return this.seq++;
  }

  sample(prompt: number[], params: SamplingParams, numSamples = 1, signal?: AbortSignal, extra: SampleExtras = {}): Promise<SampleResponse> {
    return this.client.sampleIn(this, prompt, params, numSamples, signal, extra);
  }
}

/** The asample calls of one client: the concurrency limit and the resubmission of a gone future. */
export class Sampler {
  constructor(
    private readonly futures: Futures,
    private readonly o: { config: () => ClientConfig; futureDeadlineMs: number },
  ) {}

  /** Validated sampling parameters as sent (max_tokens required, stop always a list of one kind). */
  static params(p: SamplingParams): Record<string, unknown> {
    if (!Number.isInteger(p.max_tokens) || p.max_tokens < 1) throw new TinkerError(`sampling: max_tokens must be a positive integer (got ${p.max_tokens})`, null, "user", false, "bad_params", "input");
    const stop = p.stop ?? [];
    if (stop.length > 0 && !stop.every((s) => typeof s === typeof stop[0])) throw new TinkerError("sampling: stop must be all token ids or all strings", null, "user", false, "bad_params", "input");
    return { max_tokens: p.max_tokens, temperature: p.temperature ?? 1, top_p: p.top_p ?? 1, top_k: p.top_k ?? -1, ...(p.seed !== undefined ? { seed: p.seed } : {}), stop };
  }

  private samplesInFlight = 0;
  private sampleWaiters: Array<() => void> = [];

  /** At most client/config's sample_max_concurrent_requests samples in flight (the SDK's limit). */
  private async sampleSlot(): Promise<() => void> {
    while (this.samplesInFlight >= this.o.config().sample_max_concurrent_requests) await new Promise<void>((r) => this.sampleWaiters.push(r));
    this.samplesInFlight++;
    return () => {
      this.samplesInFlight--;
      this.sampleWaiters.shift()?.();
    };
  }

  /** asample under a sampling session and wait for it (within the concurrency limit). */
  async sample(session: SamplingSession, prompt: number[], params: SamplingParams, numSamples: number, signal?: AbortSignal, extra: SampleExtras = {}): Promise<SampleResponse> {
    const release = await this.sampleSlot();
    try {
      return await this.sampleOnce(session, prompt, params, numSamples, signal, extra);
    } finally {
      release();
    }
  }

  private async sampleOnce(session: SamplingSession, prompt: number[], params: SamplingParams, numSamples: number, signal?: AbortSignal, extra: SampleExtras = {}): Promise<SampleResponse> {
    const sampling_params = Sampler.params(params);
    if (prompt.length === 0) throw new TinkerError("sampling: the prompt is empty", null, "user", false, "bad_params", "input");
    const deadline = Date.now() + this.o.futureDeadlineMs;
    for (let resubmit = 0; ; resubmit++) {
      const seqId = session.takeSeq();
      const { requestId } = await this.futures.submit(
        "asample",
        {
          json: {
            type: "sample",
            sampling_session_id: session.id,
            seq_id: seqId,
            prompt: tokensInput(prompt),
            num_samples: numSamples,
            sampling_params,
            prompt_logprobs: extra.promptLogprobs ?? false,
            topk_prompt_logprobs: 0,
          },
        },
        { signal },
      );
      try {
        return await this.futures.wait(requestId, RESULT.sample, { signal, deadline, what: "asample" });
      } catch (e) {
        if ((e as TinkerError).code === "future_gone" && resubmit < 3) continue;
        throw e;
      }
    }
  }
}
