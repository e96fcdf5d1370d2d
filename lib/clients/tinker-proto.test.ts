import { describe, expect, it } from "vitest";
import {
  ForwardBackwardBodyWriter,
  ForwardBackwardWriter,
  decodeForwardBackwardOutput,
  decodeForwardBackwardRequest,
  decodeSampleResponse,
  encodeForwardBackwardOutput,
  encodeForwardBackwardRequest,
  encodeSampleResponse,
  int64Bytes,
  readInt64,
} from "./tinker-proto";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("Tinker protobuf wire format", () => {
  it("writes ForwardBackwardRequest with the field numbers and wire types of tinker_public (hand-encoded golden)", () => {
    const bytes = encodeForwardBackwardRequest({
      model_id: "m",
      seq_id: 1,
      loss_fn: "ppo",
      forward_only: true,
      data: [{ tokens: [5], loss_fn_inputs: { t: { data: [7], dtype: "int64" } } }],
    });
    // model_id=1 "m" | seq_id=2 1 | loss_fn=4 "ppo" | forward_only=6 true | data=3 Datum{
    //   model_input=1 Chunk{encoded_text=1 {tokens=1 int32le(5)}}, loss_fn_inputs=2 {"t": Tensor{dense=1 int64le(7), dtype=3 INT64, shape=4 packed [1]}}}
    // The shape is the SDK's list(array.shape): [1] for one value (an empty shape would be a scalar).
    const golden = [
      "0a016d",
      "1001",
      "220370706f",
      "3001",
      "1a20",
      "0a08" + "0a06" + "0a04" + "05000000",
      "1214" + "0a0174" + "120f" + "0a08" + "0700000000000000" + "1802" + "220101",
    ].join("");
    expect(hex(bytes)).toBe(golden);
  });

  it("round-trips requests; slices written into one writer equal a single encoding", () => {
    const data = [
      { tokens: new Int32Array([1, 2, 3]), loss_fn_inputs: { target_tokens: { data: new Int32Array([2, 3, 4]), dtype: "int64" as const }, advantages: { data: new Float32Array([0, 0.5, -1]), dtype: "float32" as const } } },
      { tokens: [9], loss_fn_inputs: { target_tokens: { data: [151645], dtype: "int64" as const }, advantages: { data: [0.25], dtype: "float32" as const } } },
    ];
    const header = { model_id: "model_1", seq_id: 7, loss_fn: "ppo", loss_fn_config: { clip_low_threshold: 0.8, clip_high_threshold: 1.2 }, forward_only: false };
    const whole = encodeForwardBackwardRequest({ ...header, data });
    const w = new ForwardBackwardWriter(header);
    w.add(data.slice(0, 1));
    w.add(data.slice(1));
    const sliced = w.finish();
    expect(hex(sliced)).toBe(hex(whole));
    const back = decodeForwardBackwardRequest(sliced);
    expect(back).toEqual({
      model_id: "model_1",
      seq_id: 7,
      loss_fn: "ppo",
      loss_fn_config: { clip_low_threshold: 0.8, clip_high_threshold: 1.2 },
      forward_only: false,
      data: [
        { tokens: [1, 2, 3], loss_fn_inputs: { target_tokens: { data: [2, 3, 4], dtype: "int64" }, advantages: { data: [0, 0.5, -1], dtype: "float32" } } },
        { tokens: [9], loss_fn_inputs: { target_tokens: { data: [151645], dtype: "int64" }, advantages: { data: [0.25], dtype: "float32" } } },
      ],
    });
  });

  it("int64 little-endian words, negative values and values past 2^31 included", () => {
    const values = [0, 1, -1, 151645, 2 ** 31 + 5, -(2 ** 33)];
    expect(readInt64(int64Bytes(values))).toEqual(values);
    expect(readInt64(int64Bytes(new Int32Array([-7, 7])))).toEqual([-7, 7]);
  });

  it("round-trips ForwardBackwardOutput (datums concatenated with int64 byte offsets) and SampleResponse", () => {
    const out = {
      loss_fn_output_type: "scalar",
      loss_fn_outputs: [
        { logprobs: { data: [-1, -2], dtype: "float32" as const }, elementwise_loss: { data: [0.5, 0], dtype: "float32" as const } },
        { logprobs: { data: [-3], dtype: "float32" as const }, elementwise_loss: { data: [0.25], dtype: "float32" as const } },
      ],
      metrics: { "loss:sum": 0.75 },
    };
    const back = decodeForwardBackwardOutput(encodeForwardBackwardOutput(out));
    expect(back.metrics).toEqual({ "loss:sum": 0.75 });
    expect(back.loss_fn_outputs.map((o) => o.logprobs.data)).toEqual([[-1, -2], [-3]]);
    expect(back.loss_fn_outputs[1].elementwise_loss).toMatchObject({ data: [0.25], dtype: "float32", shape: [1] });

    const sample = { sequences: [{ stop_reason: "length" as const, tokens: [151645, 3], logprobs: [-0.5, -0.25] }, { stop_reason: "stop" as const, tokens: [], logprobs: null }] };
    expect(decodeSampleResponse(encodeSampleResponse(sample))).toEqual({ ...sample, prompt_logprobs: null });
  });

  it("refuses what it cannot represent", () => {
    expect(() => decodeForwardBackwardRequest(new Uint8Array([0x1a, 0x02, 0x0a]))).toThrow();
    // A shape that does not hold the values sent.
    const wrong = encodeForwardBackwardRequest({ model_id: "m", seq_id: 1, loss_fn: "ppo", forward_only: false, data: [{ tokens: [5, 6], loss_fn_inputs: { advantages: { data: [1, 2], dtype: "float32", shape: [3] } } }] });
    expect(() => decodeForwardBackwardRequest(wrong)).toThrow("datum 0: loss_fn_inputs.advantages: shape [3] does not hold its 2 values");
  });

  it("the direct body writer writes exactly protobufjs's bytes (generated requests: typed and plain arrays, empty tokens, varint edges, any header)", () => {
    let seed = 5;
    const r = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const lengths = [0, 1, 2, 31, 32, 33, 127, 128, 4095, 4096, 16383, 16384, 40000];
    for (let trial = 0; trial < 60; trial++) {
      const data = Array.from({ length: 1 + Math.floor(r() * 5) }, () => {
        const n = lengths[Math.floor(r() * lengths.length)];
        const typed = r() < 0.7;
        const ints = Array.from({ length: n }, () => Math.floor(r() * 152_000) - (r() < 0.05 ? 2 ** 31 : 0));
        const floats = Array.from({ length: n }, () => (r() < 0.3 ? 0 : (r() - 0.5) * 10));
        const inputs: Record<string, { data: ArrayLike<number>; dtype: "int64" | "float32"; shape?: number[] | null }> = {
          target_tokens: { data: typed ? Int32Array.from(ints) : ints.map((x) => (r() < 0.1 ? x * 3 : x)), dtype: "int64" },
          logprobs: { data: typed ? Float32Array.from(floats) : floats, dtype: "float32" },
        };
        if (r() < 0.5) inputs.advantages = { data: Float32Array.from(floats), dtype: "float32", ...(r() < 0.3 ? { shape: [n] } : r() < 0.2 ? { shape: null } : {}) };
        if (r() < 0.2) inputs["权重 é"] = { data: floats, dtype: "float32", shape: [1, n] };
        return { tokens: typed ? Int32Array.from(ints) : ints, loss_fn_inputs: inputs };
      });
      const header = {
        model_id: r() < 0.1 ? "" : `model_${trial}_ü`,
        seq_id: [0, 1, 127, 128, 300_000, 2 ** 31 - 1][trial % 6],
        loss_fn: r() < 0.1 ? "" : "ppo",
        loss_fn_config: r() < 0.3 ? null : r() < 0.5 ? ({} as Record<string, number>) : { clip_low_threshold: 0.8, clip_high_threshold: 1.2, kl_coef: r() },
        forward_only: r() < 0.3,
      };
      const reference = new ForwardBackwardWriter(header);
      reference.add(data);
      const direct = ForwardBackwardBodyWriter.create(header, data);
      expect(direct).not.toBeNull();
      expect(Buffer.from(direct!.encode()).equals(Buffer.from(reference.finish()))).toBe(true);
    }
    // Negative varints are left to protobufjs.
    expect(ForwardBackwardBodyWriter.create({ model_id: "m", seq_id: -1, loss_fn: "ppo", forward_only: false }, [])).toBeNull();
    expect(ForwardBackwardBodyWriter.create({ model_id: "m", seq_id: 1, loss_fn: "ppo", forward_only: false }, [{ tokens: [1], loss_fn_inputs: { x: { data: [1], dtype: "float32", shape: [-1] } } }])).toBeNull();
    expect(ForwardBackwardBodyWriter.create({ model_id: "m\uD800", seq_id: 1, loss_fn: "ppo", forward_only: false }, [])).toBeNull();
  });
});
