/**
 * A TinkerModel stand-in that records what a TinkerPolicy sends and answers with canned replies,
 * for checking the client against servers that cannot run here (hosted Tinker, SkyRL tx).
 */
import type { AdamParams, Datum, ForwardBackwardOutput } from "../../lib/clients/tinker-client";

export interface RecordedCall {
  op: "forward_backward" | "forward" | "optim_step";
  data?: Datum[];
  lossFn?: string;
  config?: Record<string, number>;
  adam?: AdamParams;
}

export function recordingTinkerModel(opts: { modelId?: string; reply?: (data: Datum[]) => ForwardBackwardOutput } = {}) {
  const calls: RecordedCall[] = [];
  const reply = opts.reply ?? ((data: Datum[]) => ({ loss_fn_output_type: "scalar", loss_fn_outputs: data.map(() => ({})), metrics: {} }));
  const model = {
    modelId: opts.modelId ?? "model_0123abcd",
    baseModel: "Qwen/Qwen3-8B",
    async forwardBackward(data: Datum[], lossFn: string, config?: Record<string, number>): Promise<ForwardBackwardOutput> {
      calls.push({ op: "forward_backward", data: structuredClone(data), lossFn, config });
      return reply(data);
    },
    async forward(data: Datum[], lossFn: string, config?: Record<string, number>): Promise<ForwardBackwardOutput> {
      calls.push({ op: "forward", data: structuredClone(data), lossFn, config });
      return reply(data);
    },
    async optimStep(adam: AdamParams): Promise<{ metrics?: Record<string, number> }> {
      calls.push({ op: "optim_step", adam });
      return { metrics: {} };
    },
  };
  return { model, calls };
}
