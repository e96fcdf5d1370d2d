/** The optim section of the run config, field by field, reaches the trainer (no setting silently does nothing). */
import { describe, expect, it } from "vitest";
import { parseRunConfig, presets, runConfigSchema } from "../../contracts/run-config";
import { lossConfigFrom, optimConfigFrom } from "./step";

const parse = (optim: Record<string, unknown>) => {
  const r = parseRunConfig({ optim });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
};

describe("optim settings → loss and optimiser configs", () => {
  it("useKl gates the KL term: off sends klCoef 0 whatever klCoef says", () => {
    expect(lossConfigFrom(parse({ useKl: false, klCoef: 0.5 })).klCoef).toBe(0);
    expect(lossConfigFrom(parse({ useKl: true, klCoef: 0.5 })).klCoef).toBe(0.5);
  });

  it("klType, lossAgg, recomputeLogprobs, clip, dual clip and entropy reach the loss config", () => {
    const l = lossConfigFrom(parse({ klType: "k2", lossAgg: "token-mean", recomputeLogprobs: true, clipLow: 0.1, clipHigh: 0.28, dualClip: 5, entropyCoef: 0.01 }));
    expect(l).toEqual({ loss: "ppo", clipLow: 0.1, clipHigh: 0.28, dualClip: 5, klCoef: 0, klType: "k2", entropyCoef: 0.01, lossAgg: "token-mean", recomputeLogprobs: true });
  });

  it("the optimiser settings reach optim_step", () => {
    expect(optimConfigFrom(parse({ lr: 2e-5, beta1: 0.8, beta2: 0.95, weightDecay: 0.1, gradClip: 0.5 }))).toEqual({ lr: 2e-5, beta1: 0.8, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, gradClip: 0.5 });
  });

  it("every optim field is read by the loss config, the optimiser config or the advantages, and described", () => {
    const read = new Set(["lr", "beta1", "beta2", "weightDecay", "gradClip", "clipLow", "clipHigh", "dualClip", "useKl", "klCoef", "klType", "entropyCoef", "lossAgg", "recomputeLogprobs", "roleWiseBaseline", "normAdvByStd"]);
    const shape = (runConfigSchema._def.schema.shape.optim._def.innerType as { shape: Record<string, { description?: string }> }).shape;
    expect(new Set(Object.keys(shape))).toEqual(read);
    for (const [k, v] of Object.entries(shape)) expect(v.description, `optim.${k} has no description`).toBeTruthy();
  });

  it("EnvACE presets weigh every row equally (the reference's micro-batch of one): seq-mean-token-mean", () => {
    expect(parse({}).optim.lossAgg).toBe("seq-mean-token-mean");
    for (const p of Object.values(presets)) {
      const r = parseRunConfig(p.config);
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      expect(r.config.optim.lossAgg).toBe("seq-mean-token-mean");
    }
  });

  it("refuses unknown KL estimators and aggregation modes, and a dual clip of 1 or less (verl asserts c > 1)", () => {
    for (const bad of [{ klType: "k4" }, { lossAgg: "sum" }, { dualClip: 1 }]) expect(parseRunConfig({ optim: bad }).ok).toBe(false);
  });
});
