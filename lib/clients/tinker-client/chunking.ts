/**
 * forward_backward in chunks: datums split within the server's limits (datum count and estimated proto bytes),
 * one chunk's body (protobuf written a few datums at a time, or JSON), and the chunks' metrics merged back into one set.
 */
import type { ClientConfig } from "../tinker-wire";
import { ForwardBackwardBodyWriter, ForwardBackwardWriter, estimateDatumBytes } from "../tinker-proto";
import { datumAsJson } from "./datums";
import { TinkerError } from "./errors";
import type { Body } from "./transport";
import type { Datum, LossFn, WireFormat } from "./types";

/** Metrics of several forward_backward chunks → one set, by each key's reduction suffix (as the SDK does). */
export function mergeChunkMetrics(chunks: Array<{ metrics: Record<string, number>; datums: number }>): Record<string, number> {
  if (chunks.length === 1) return { ...chunks[0].metrics };
  const out: Record<string, number> = {};
  const keys = new Set(chunks.flatMap((c) => Object.keys(c.metrics)));
  for (const key of keys) {
    const having = chunks.filter((c) => key in c.metrics);
    const values = having.map((c) => c.metrics[key]);
    const reduction = key.includes(":") ? key.slice(key.lastIndexOf(":") + 1) : "last";
    switch (reduction) {
      case "sum":
        out[key] = values.reduce((a, b) => a + b, 0);
        break;
      case "mean": {
        const w = having.reduce((n, c) => n + c.datums, 0);
        out[key] = w > 0 ? having.reduce((s, c) => s + c.metrics[key] * c.datums, 0) / w : values[0];
        break;
      }
      case "min":
        out[key] = Math.min(...values);
        break;
      case "max":
        out[key] = Math.max(...values);
        break;
      default:
        // "last" (SkyRL's policy_lr:last) and reductions without a defined merge: the last chunk's value.
        out[key] = values[values.length - 1];
    }
  }
  return out;
}

/**
 * Protobuf framing per datum beyond its payload bytes (field tags, lengths, map keys): the SDK's
 * estimate leaves it out; counting it keeps every body within the byte limit itself.
 */
const FRAMING_BYTES_PER_DATUM = 192;

const datumBytes = (d: Datum) =>
  FRAMING_BYTES_PER_DATUM +
  estimateDatumBytes({
    tokens: d.model_input.chunks.reduce((k, c) => k + c.tokens.length, 0),
    tensors: Object.values(d.loss_fn_inputs).map((t) => ({ length: t.data.length, dtype: t.dtype })),
  });

/** Splits datums into chunks within the server's limits (datum count and estimated proto bytes, framing included). */
export function chunkDatums(data: Datum[], config: Pick<ClientConfig, "fwdbwd_max_chunk_len" | "fwdbwd_max_chunk_bytes_count">): Datum[][] {
  const chunks: Datum[][] = [];
  let current: Datum[] = [];
  let bytes = 0;
  for (const d of data) {
    const b = datumBytes(d);
    if (current.length > 0 && (current.length >= config.fwdbwd_max_chunk_len || bytes + b > config.fwdbwd_max_chunk_bytes_count)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(d);
    bytes += b;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

/** One chunk's body; protobuf is serialised a few datums at a time, pausing for the event loop between. */
export async function encodeChunk(
  wire: WireFormat,
  modelId: string,
  chunk: Datum[],
  seqId: number,
  lossFn: LossFn,
  lossFnConfig: Record<string, number> | null,
  forwardOnly: boolean,
): Promise<Body> {
  if (wire === "protobuf") {
    const header = { model_id: modelId, seq_id: seqId, loss_fn: lossFn, loss_fn_config: lossFnConfig, forward_only: forwardOnly };
    const asProto = (d: Datum) => ({ tokens: d.model_input.chunks.length === 1 ? d.model_input.chunks[0].tokens : d.model_input.chunks.flatMap((c) => Array.from(c.tokens)), loss_fn_inputs: d.loss_fn_inputs });
    const data = chunk.map(asProto);
    // Straight into one buffer of the body's size (tinker-proto.ts), pausing for the event loop before
    // each chunk and every ~100k positions (a few ms of copying): a server that answers at once (or a
    // stand-in) would otherwise let the whole step's chunks run in one go of microtasks.
    await yieldToLoop();
    const direct = ForwardBackwardBodyWriter.create(header, data);
    if (direct) {
      const steps = direct.steps(100_000);
      for (;;) {
        const r = steps.next();
        if (r.done) return { proto: r.value };
        await yieldToLoop();
      }
    }
    // Values the direct writer leaves to protobufjs (negative varints, surrogates): its writer, a few datums at a time.
    const writer = new ForwardBackwardWriter(header);
    let group: typeof data = [];
    let positions = 0;
    for (const d of data) {
      group.push(d);
      positions += d.tokens.length;
      if (positions >= 50_000) {
        writer.add(group);
        group = [];
        positions = 0;
        await yieldToLoop();
      }
    }
    writer.add(group);
    return { proto: writer.finish() };
  }
  if (forwardOnly) throw new TinkerError("forward-only passes need the protobuf wire format (JSON servers: use /forward)", null, "user", false, "bad_params", "input");
  return { json: { type: "forward_backward", model_id: modelId, seq_id: seqId, forward_backward_input: { data: chunk.map(datumAsJson), loss_fn: lossFn, loss_fn_config: lossFnConfig } } };
}
