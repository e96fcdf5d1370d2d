import { describe, expect, it } from "vitest";
import { parseRunConfig, quickstartPreset, type RunConfigInput } from "../../contracts/run-config";
import { TokenOutOfVocabularyError } from "../../lib/renderers";
import { createShopOraclePolicy } from "../../test/doubles/shop-oracle";
import { generateShopInstances } from "../envs/shop/tasks";
import { assertGenerationsHealthy, generationHealth, StepFailedError } from "./health";
import type { GenerateRequest, PolicyClient, TrainerClient } from "./io";
import { runEvaluation, runTrainingStep } from "./step";

function config(over: { maxFailedGenerationShare?: number; kind?: "train" | "eval" } = {}) {
  const input: RunConfigInput = {
    ...quickstartPreset,
    ...(over.kind ? { kind: over.kind } : {}),
    data: { ...quickstartPreset.data, instancesPerStep: 2, rolloutsPerInstance: 2 },
    rollout: { ...quickstartPreset.rollout, ...(over.maxFailedGenerationShare !== undefined ? { maxFailedGenerationShare: over.maxFailedGenerationShare } : {}) },
  };
  const r = parseRunConfig(input);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

function countingTrainer() {
  const calls = { fb: 0, optim: 0 };
  const trainer: TrainerClient = {
    forwardBackward: async () => {
      calls.fb++;
      return { metrics: {} };
    },
    optimStep: async () => {
      calls.optim++;
      return { metrics: {} };
    },
    updateSampler: async () => {},
    saveWeightsForSampler: async (name) => ({ path: name }),
    saveState: async (name) => ({ path: name }),
    loadState: async () => {},
  };
  return { trainer, calls };
}

/** The oracle policy, failing the generations `fail` picks with `error`. */
function failingPolicy(fail: (n: number, req: GenerateRequest) => boolean, error: () => Error): PolicyClient {
  const oracle = createShopOraclePolicy();
  let n = 0;
  return {
    async generate(req) {
      if (fail(n++, req)) throw error();
      return oracle.generate(req);
    },
  };
}

const instances = generateShopInstances(11, 2);

async function failure(p: Promise<unknown>): Promise<StepFailedError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(StepFailedError);
  return e as StepFailedError;
}

describe("generation health", () => {
  it("counts act and rehearse generations and the failed ones, with the first vocabulary error", () => {
    const h = generationHealth([
      { role: "act" },
      { role: "rehearse", error: { code: "GENERATION_FAILED", payload: "timeout" } },
      { role: "environment" },
      { role: "act", error: { code: "GENERATION_FAILED", payload: "outside the Qwen3 vocabulary", cause: "TOKENS_OUT_OF_VOCABULARY" } },
      { role: "act", error: { code: "JSON_DECODE_ERROR" } },
    ]);
    expect(h).toEqual({ attempted: 4, failed: 2, failedShare: 0.5, firstError: "timeout", vocabularyError: "outside the Qwen3 vocabulary" });
  });

  it("fails at the threshold's edge only above it", () => {
    const h = { attempted: 4, failed: 2, failedShare: 0.5 };
    expect(() => assertGenerationsHealthy(h, 1, 0.5, "s")).not.toThrow();
    expect(() => assertGenerationsHealthy(h, 1, 0.49, "s")).toThrow(/2 of 4 generations failed \(50%, above rollout\.maxFailedGenerationShare = 0\.49\)/);
    // All failed is fatal whatever the threshold.
    expect(() => assertGenerationsHealthy({ attempted: 2, failed: 2, failedShare: 1, firstError: "x" }, 1, 1, "s")).toThrow(/every generation failed/);
  });
});

describe("a training step fails fast instead of succeeding on nothing", () => {
  it("ids outside the renderer's vocabulary fail the step with the renderer's message, before any update", async () => {
    const { trainer, calls } = countingTrainer();
    const policy = failingPolicy((n) => n === 3, () => new TokenOutOfVocabularyError("qwen3", "Qwen3", 151_669, [200_000]));
    const e = await failure(runTrainingStep({ instances, config: config(), policy, trainer, stepIndex: 2, runId: "r" }));
    expect(e.code).toBe("TOKENS_OUT_OF_VOCABULARY");
    expect(e.message).toMatch(/^training step 2: node returned token ids outside the Qwen3 vocabulary \(200000; .*is the node's model the one this run renders for\?$/);
    expect(calls).toEqual({ fb: 0, optim: 0 });
  });

  it("every generation failing fails the step, naming the first error", async () => {
    const { trainer, calls } = countingTrainer();
    const policy = failingPolicy(() => true, () => new Error("connect ECONNREFUSED 127.0.0.1:9"));
    const e = await failure(runTrainingStep({ instances, config: config({ maxFailedGenerationShare: 1 }), policy, trainer, stepIndex: 1, runId: "r" }));
    expect(e.code).toBe("ALL_GENERATIONS_FAILED");
    expect(e.message).toMatch(/^training step 1: every generation failed \(\d+ of \d+\); first error: connect ECONNREFUSED/);
    expect(calls.fb).toBe(0);
  });

  it("a failed share above the run's threshold fails the step; below it the share is a metric", async () => {
    const rehearseFails = (_n: number, req: GenerateRequest) => req.role === "rehearse";
    const { trainer } = countingTrainer();
    const e = await failure(runTrainingStep({ instances, config: config({ maxFailedGenerationShare: 0.1 }), policy: failingPolicy(rehearseFails, () => new Error("boom")), trainer, stepIndex: 1, runId: "r" }));
    expect(e.code).toBe("TOO_MANY_FAILED_GENERATIONS");

    const ok = await runTrainingStep({ instances, config: config({ maxFailedGenerationShare: 0.9 }), policy: failingPolicy(rehearseFails, () => new Error("boom")), trainer, stepIndex: 1, runId: "r" });
    expect(ok.metrics["generation/failed_share"]).toBeGreaterThan(0.1);
    expect(ok.metrics["generation/failed_share"]).toBeLessThan(1);
    expect(ok.metrics["generation/failed"]).toBeGreaterThan(0);
    expect(ok.metrics["generation/attempted"]).toBeGreaterThan(ok.metrics["generation/failed"]);
  });

  it("a step whose generations carry no token ids has no training data and fails", async () => {
    const oracle = createShopOraclePolicy();
    const textOnly: PolicyClient = { generate: async (req) => ({ ...(await oracle.generate(req)), promptTokens: [], tokens: [], logprobs: [] }) };
    const { trainer, calls } = countingTrainer();
    const e = await failure(runTrainingStep({ instances, config: config(), policy: textOnly, trainer, stepIndex: 4, runId: "r" }));
    expect(e.code).toBe("NO_TRAINING_DATA");
    expect(e.message).toMatch(/^training step 4: no training datums — no generation returned token ids/);
    expect(calls.fb).toBe(0);
  });

  it("a healthy step reports a zero failed share", async () => {
    const { trainer, calls } = countingTrainer();
    const res = await runTrainingStep({ instances, config: config(), policy: createShopOraclePolicy(), trainer, stepIndex: 1, runId: "r" });
    expect(res.metrics["generation/failed_share"]).toBe(0);
    expect(calls.fb).toBe(1);
  });
});

describe("an evaluation fails fast too", () => {
  it("fails when every generation failed", async () => {
    const policy = failingPolicy(() => true, () => new Error("HTTP 500"));
    const e = await failure(runEvaluation({ instances, config: config({ kind: "eval" }), policy, stepIndex: 5, runId: "r" }));
    expect(e.message).toMatch(/^evaluation at step 5: every generation failed/);
  });
});
