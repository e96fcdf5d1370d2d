/**
 * Futures: a future-returning POST gives a request_id, whose result is long-polled with retrieve_future
 * (tinker-protocol.md §1.8). A poll that times out on either side, try_again and 408 are polled again
 * without counting; network errors and 5xx back off; only a failed result (hosted 200 {error, category},
 * SkyRL 400 {detail}), a fatal status or the overall deadline end the wait with an error.
 */
import type { z } from "zod";
import { PROTO_CONTENT_TYPE, decodeForwardBackwardOutput, decodeSampleResponse } from "../tinker-proto";
import {
  createModelResult,
  describeZodError,
  failedFutureReply,
  forwardBackwardResult,
  loadWeightsResult,
  optimStepResult,
  sampleResult,
  saveWeightsForSamplerResult,
  saveWeightsResult,
  tryAgainReply,
  unloadModelResult,
  untypedFutureReply,
} from "../tinker-wire";
import { type FailureCategory, type HttpTinkerError, TinkerError } from "./errors";
import { type Body, type CallOptions, type Reply, sleep, type Transport } from "./transport";

/** How results of one future are read. */
export interface ResultKind<T> {
  schema: z.ZodType<T, z.ZodTypeDef, unknown>;
  /** Results that may come back as protobuf when asked for (SDK 0.25 asks for them). */
  proto?: (bytes: Uint8Array) => unknown;
}

export const RESULT = {
  createModel: { schema: createModelResult },
  forwardBackward: { schema: forwardBackwardResult, proto: decodeForwardBackwardOutput },
  optimStep: { schema: optimStepResult },
  saveForSampler: { schema: saveWeightsForSamplerResult },
  saveWeights: { schema: saveWeightsResult },
  loadWeights: { schema: loadWeightsResult },
  unload: { schema: unloadModelResult },
  sample: { schema: sampleResult, proto: decodeSampleResponse },
} satisfies Record<string, ResultKind<unknown>>;

export interface FutureOptions {
  nodeName: string;
  /** Overall deadline of one operation, submission to result (ms). */
  futureDeadlineMs: number;
  /** Per retrieve_future call: a little past the server's long poll (depends on the profile, hence a function). */
  pollTimeoutMs: () => number;
  retryBaseMs: number;
  retryMaxMs: number;
  log: (message: string) => void;
}

export class Futures {
  constructor(
    private readonly transport: Transport,
    private readonly o: FutureOptions,
  ) {}

  /** POSTs a future-returning request; returns its request_id. */
  async submit(path: string, body: Body, opts: CallOptions = {}): Promise<{ requestId: string; modelId?: string | null }> {
    const r = await this.transport.call("POST", path, body, untypedFutureReply, opts);
    return { requestId: r.request_id, modelId: r.model_id };
  }

  /**
   * Long-polls retrieve_future until the result is ready (tinker-protocol.md §1.8). Client-side poll
   * timeouts, try_again and 408 are polled again without counting; network errors and 5xx back off;
   * only a failed result, a fatal status or the overall deadline end the wait with an error.
   */
  async wait<T>(requestId: string, kind: ResultKind<T>, opts: { signal?: AbortSignal; deadline?: number; what?: string } = {}): Promise<T> {
    const deadline = opts.deadline ?? Date.now() + this.o.futureDeadlineMs;
    const what = opts.what ?? "request";
    let bare400s = 0;
    let backoff = 0;
    let quick = 0;
    for (;;) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (Date.now() > deadline)
        throw new TinkerError(
          `node "${this.o.nodeName}": ${what} ${requestId} not done within ${Math.round(this.o.futureDeadlineMs / 1000)} s (node setting tinker.futureDeadlineS)`,
          null,
          "transport",
          false,
          "deadline",
          "deadline",
        );
      const polledAt = Date.now();
      let reply: Reply;
      try {
        reply = await this.transport.send(
          "POST",
          "retrieve_future",
          { json: { request_id: requestId, allow_metadata_only: false } },
          { retries: 0, timeoutMs: Math.max(1, Math.min(this.o.pollTimeoutMs(), deadline - Date.now())), signal: opts.signal, accept: kind.proto ? `${PROTO_CONTENT_TYPE}, application/json` : undefined },
        );
      } catch (e) {
        const err = e as TinkerError;
        if (!(err instanceof TinkerError)) throw e;
        if (err.code === "timeout" || err.status === 408) {
          backoff = 0;
          continue; // the long poll ended on either side: poll again at once
        }
        if (err.status === 400 && !(err as HttpTinkerError).bare) {
          // SkyRL's failed future: HTTP 400 {detail}.
          throw new TinkerError(`node "${this.o.nodeName}": ${what} failed: ${String(((err as HttpTinkerError).body as { detail?: unknown } | undefined)?.detail)}`, 400, "user", false, "request_failed", "failed");
        }
        if (err.status === 400 && bare400s++ < 3) continue; // a bare 400 may come from a proxy
        if (err.status === 410) throw new TinkerError(`node "${this.o.nodeName}": ${what} ${requestId} is gone (410); resubmit the request`, 410, "server", true, "future_gone", "http");
        if (err.kind === "transport" || err.status === 429 || (err.status ?? 0) >= 500) {
          await sleep(err.retryAfterMs ?? Math.min(this.o.retryBaseMs * 2 ** backoff++, this.o.retryMaxMs), opts.signal);
          continue;
        }
        throw err;
      }
      backoff = 0;
      if (reply.bytes) {
        if (!kind.proto) throw new TinkerError(`node "${this.o.nodeName}": ${what} ${requestId}: protobuf reply for a JSON-only result`, reply.status, "server", false, "bad_reply", "protocol");
        let decoded: unknown;
        try {
          decoded = kind.proto(reply.bytes);
        } catch (e) {
          throw new TinkerError(`node "${this.o.nodeName}": ${what} ${requestId}: undecodable protobuf result (${(e as Error).message})`, reply.status, "server", false, "bad_reply", "protocol");
        }
        return this.parseResult(decoded, kind, requestId, what);
      }
      const r = reply.json as Record<string, unknown> | null;
      if (r && typeof r === "object" && r.type === "try_again") {
        const t = tryAgainReply.safeParse(r);
        if (t.success && t.data.queue_state && t.data.queue_state !== "active") this.o.log(`node "${this.o.nodeName}": ${what} queued (${t.data.queue_state}${t.data.queue_state_reason ? `: ${t.data.queue_state_reason}` : ""})`);
        // A server that does not long-poll answers at once: do not spin.
        if (Date.now() - polledAt < 200) await sleep(Math.min(50 * 2 ** quick++, 1000), opts.signal);
        else quick = 0;
        continue;
      }
      if (r && typeof r === "object" && "error" in r) {
        const f = failedFutureReply.safeParse(r);
        if (f.success) {
          const category = (["user", "server", "unknown"].includes(f.data.category ?? "") ? f.data.category : "unknown") as FailureCategory;
          throw new TinkerError(`node "${this.o.nodeName}": ${what} failed (${category}): ${f.data.error}`, null, category, false, "request_failed", "failed");
        }
      }
      return this.parseResult(r, kind, requestId, what);
    }
  }

  private parseResult<T>(value: unknown, kind: ResultKind<T>, requestId: string, what: string): T {
    const parsed = kind.schema.safeParse(value);
    if (!parsed.success)
      throw new TinkerError(`node "${this.o.nodeName}": ${what} ${requestId}: unexpected result (${describeZodError(parsed.error)})`, 200, "server", false, "bad_reply", "protocol");
    return parsed.data;
  }
}
