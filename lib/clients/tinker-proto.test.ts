import { describe, expect, it } from "vitest";
import {
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
});
