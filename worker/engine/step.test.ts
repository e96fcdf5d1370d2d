import { describe, expect, it } from "vitest";
import { parseRunConfig, quickstartPreset, type RunConfigInput } from "../../contracts/run-config";
import { createShopOraclePolicy } from "../../test/doubles/shop-oracle";
import { generateShopInstances } from "../envs/shop/tasks";
import type { LossConfig, OptimConfig, TrainerClient, TrainingDatum } from "./io";
import { runEvaluation, runTrainingStep } from "./step";

function config(over: RunConfigInput = {}) {
  const r = parseRunConfig({ ...quickstartPreset, ...over, data: { ...quickstartPreset.data, instancesPerStep: 4, rolloutsPerInstance: 4, ...(over.data ?? {}) } });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

function recordingTrainer() {
  const calls: { fb: { data: TrainingDatum[]; loss: LossConfig }[]; optim: OptimConfig[]; saved: string[]; samplerUpdates: number } = { fb: [], optim: [], saved: [], samplerUpdates: 0 };
  const trainer: TrainerClient = {
    forwardBackward: async (data, loss) => {
      calls.fb.push({ data, loss });
      return { metrics: { pg_loss: 0.5, "actor/entropy_loss": 1.2 } };
    },
    optimStep: async (o) => {
      calls.optim.push(o);
      return { metrics: { grad_norm: 0.1 } };
    },
    updateSampler: async () => {
      calls.samplerUpdates++;
    },
    saveWeightsForSampler: async (name) => {
      calls.saved.push(name);
      return { path: `tinker://sampler/${name}` };
    },
    saveState: async (name) => ({ path: name }),
    loadState: async () => {},
  };
  return { trainer, calls };
}

describe("runTrainingStep", () => {
  it("unfolds K rollouts, computes role-wise advantages and sends one update with both roles", async () => {
    const cfg = config();
    const instances = generateShopInstances(5, 4);
    // Every second act call of rollout-dependent parity gets a broken output → mixed rewards in each group.
    let n = 0;
    const policy = createShopOraclePolicy({ override: (req) => (req.role === "act" && n++ % 3 === 1 ? "I am not sure." : undefined) });
    const { trainer, calls } = recordingTrainer();
    const progress: number[] = [];
    const res = await runTrainingStep({ instances, config: cfg, policy, trainer, stepIndex: 3, runId: "r1", onRolloutDone: (d) => progress.push(d) });

    expect(res.kind).toBe("train");
    expect(res.trajectories).toHaveLength(16);
    expect(progress.at(-1)).toBe(16);
    expect(new Set(res.trajectories.map((t) => t.groupId)).size).toBe(4);
    expect(res.trajectories[0].groupId).toBe(`r1:s3:0:${instances[0].id}`);
    expect(res.trajectories.map((t) => t.rolloutIndex).slice(0, 4)).toEqual([0, 1, 2, 3]);
    // The step publishes its weights ephemerally; persistent sampler saves are left to checkpoints.
    expect(calls.samplerUpdates).toBe(1);
    expect(calls.saved).toEqual([]);
    expect(calls.fb).toHaveLength(1);
    expect(calls.optim).toEqual([{ lr: quickstartPreset.optim!.lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, gradClip: 1 }]);
    expect(calls.fb[0].loss).toEqual({
      loss: "ppo",
      clipLow: 0.2,
      clipHigh: 0.2,
      dualClip: 3,
      klCoef: 0,
      klType: "low_var_kl",
      entropyCoef: 0,
      lossAgg: "seq-mean-token-mean",
      recomputeLogprobs: false,
    });
    const roles = new Set(calls.fb[0].data.map((d) => d.role));
    expect(roles).toEqual(new Set(["act", "rehearse"]));

    // Advantages: per (group, role) they sum to zero (mean baseline), and every token carries the row's value.
    const byGroup = new Map<string, number>();
    for (const t of res.trajectories) for (const turn of t.turns) {
      if (turn.advantageGroupId === undefined) continue;
      expect(turn.advantageGroupId).toMatch(/:(act|rehearse)$/);
      byGroup.set(turn.advantageGroupId, (byGroup.get(turn.advantageGroupId) ?? 0) + turn.advantage!);
    }
    for (const sum of byGroup.values()) expect(Math.abs(sum)).toBeLessThan(1e-9);
    for (const d of calls.fb[0].data) expect(new Set(d.advantages).size).toBe(1);
    expect(res.trajectories.some((t) => t.reward < 1)).toBe(true);
    expect(res.trajectories.some((t) => t.reward === 1)).toBe(true);

    for (const key of [
      "critic/act/score/mean",
      "critic/rehearse/advantages/max",
      "episode/reward/mean",
      "episode/pass@4",
      "episode/avg@4",
      "episode/valid_action_ratio",
      "response_length/mean",
      "fidelity/exact_rate",
      "timing_s/step",
      "actor/pg_loss",
      "actor/entropy_loss",
      "actor/grad_norm",
    ]) expect(res.metrics[key], key).toBeTypeOf("number");
    expect(res.metrics["fidelity/exact_rate"]).toBe(1);
    expect(res.trajectories[0].fidelity?.comparisons).toBeGreaterThan(0);
  });
});

describe("grounded rehearsal (reward.rehearsalGrounding)", () => {
  // Every second rehearsal answers with a made-up total: fidelity 0.5 against the real cart.
  function halfWrongRehearsals() {
    let n = 0;
    return createShopOraclePolicy({
      override: (req) => (req.role === "rehearse" && n++ % 2 === 1 ? '\n<execution_result>\n{"cart":{"tea":1},"total":999}\n</execution_result>' : undefined),
    });
  }
  const rehearseRows = (res: Awaited<ReturnType<typeof runTrainingStep>>) =>
    res.trajectories.flatMap((t) => t.turns.filter((x) => x.role === "rehearse").map((turn) => ({ t, turn })));

  it("mixes each rehearse row's own fidelity into its reward; act rows keep the trajectory reward", async () => {
    const cfg = config({ reward: { rehearsalGrounding: 0.5 } });
    const res = await runTrainingStep({ instances: generateShopInstances(7, 4), config: cfg, policy: halfWrongRehearsals(), trainer: recordingTrainer().trainer, stepIndex: 1 });
    const rows = rehearseRows(res);
    expect(rows.some(({ turn }) => turn.fidelity!.score < 1)).toBe(true);
    expect(rows.some(({ turn }) => turn.fidelity!.score === 1)).toBe(true);
    for (const { t, turn } of rows) expect(turn.score).toBeCloseTo(0.5 * t.reward + 0.5 * turn.fidelity!.score, 12);
    for (const t of res.trajectories) for (const turn of t.turns) if (turn.role === "act") expect(turn.score).toBe(turn.valid ? t.reward : t.reward - 0.1);
    // Role-wise baseline: the rehearse advantages still sum to zero per group.
    const sums = new Map<string, number>();
    for (const { turn } of rows) sums.set(turn.advantageGroupId!, (sums.get(turn.advantageGroupId!) ?? 0) + turn.advantage!);
    for (const sum of sums.values()) expect(Math.abs(sum)).toBeLessThan(1e-9);
  });

  it("is off by default: rehearse rows score the trajectory reward, as in the method", async () => {
    const defaults = parseRunConfig({});
    expect(defaults.ok && defaults.config.reward.rehearsalGrounding).toBe(0);
    const cfg = config({ reward: { rehearsalGrounding: 0 } });
    const res = await runTrainingStep({ instances: generateShopInstances(7, 4), config: cfg, policy: halfWrongRehearsals(), trainer: recordingTrainer().trainer, stepIndex: 1 });
    const rows = rehearseRows(res);
    expect(rows.some(({ turn }) => turn.fidelity!.score < 1)).toBe(true);
    for (const { t, turn } of rows) expect(turn.score).toBe(t.reward);
  });

  it("is refused at the config boundary without shadow execution", () => {
    const r = parseRunConfig({ ...quickstartPreset, rollout: { ...quickstartPreset.rollout, shadowExecution: false }, reward: { rehearsalGrounding: 0.3 } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toEqual([expect.objectContaining({ path: "reward.rehearsalGrounding", message: expect.stringContaining("shadowExecution") })]);
    const over = parseRunConfig({ ...quickstartPreset, reward: { rehearsalGrounding: 1.5 } });
    expect(over.ok).toBe(false);
    // A shared (non-role-wise) baseline would pass the rehearse role's fidelity on to the act role.
    const shared = parseRunConfig({ ...quickstartPreset, optim: { ...quickstartPreset.optim, roleWiseBaseline: false } });
    expect(shared.ok).toBe(false);
    if (!shared.ok) expect(shared.errors).toEqual([expect.objectContaining({ path: "reward.rehearsalGrounding", message: expect.stringContaining("optim.roleWiseBaseline") })]);
  });
});

describe("runEvaluation", () => {
  it("uses eval sampling and never touches the trainer", async () => {
    const cfg = config({ kind: "eval" });
    const seen: number[] = [];
    const oracle = createShopOraclePolicy();
    const policy = { generate: (req: any) => { seen.push(req.sampling.temperature); return oracle.generate(req); } };
    const res = await runEvaluation({ instances: generateShopInstances(1, 3, "test"), config: cfg, policy, stepIndex: 0 });
    expect(res.kind).toBe("eval");
    expect(res.trajectories).toHaveLength(3);
    expect(new Set(seen)).toEqual(new Set([0.6]));
    expect(res.metrics["val/builtin:shop/test_score"]).toBeCloseTo(1, 9);
    expect(res.metrics["val/pass@1"]).toBe(1);
  });
});

describe("rollout.responseBudgetTokens", () => {
  it("caps every rehearse generation (training, evaluation and the fidelity probe), never an act generation", async () => {
    const seen: { role: string; maxTokens: number }[] = [];
    const oracle = createShopOraclePolicy();
    const policy = { generate: (req: any) => { seen.push({ role: req.role, maxTokens: req.sampling.maxTokens }); return oracle.generate(req); } };
    const budget = { rollout: { ...quickstartPreset.rollout, responseBudgetTokens: 48 } };
    await runTrainingStep({ instances: generateShopInstances(2, 1), config: config(budget), policy, trainer: recordingTrainer().trainer, stepIndex: 1 });
    await runEvaluation({ instances: generateShopInstances(3, 1, "test"), config: config({ ...budget, kind: "eval" }), policy, stepIndex: 1 });
    const probe = config({ kind: "eval", fidelityProbe: true, rollout: { ...budget.rollout, paradigm: "environment", shadowExecution: false }, reward: { rehearsalGrounding: 0 } });
    await runEvaluation({ instances: generateShopInstances(4, 1, "test"), config: probe, policy, stepIndex: 1 });
    expect(new Set(seen.filter((s) => s.role === "rehearse").map((s) => s.maxTokens))).toEqual(new Set([48]));
    expect(new Set(seen.filter((s) => s.role === "act").map((s) => s.maxTokens))).toEqual(new Set([192]));
    // A budget above the role's own maxTokens leaves it as it is (the quickstart: both 192).
    seen.length = 0;
    await runTrainingStep({ instances: generateShopInstances(2, 1), config: config(), policy, trainer: recordingTrainer().trainer, stepIndex: 1 });
    expect(new Set(seen.map((s) => s.maxTokens))).toEqual(new Set([192]));
  });
});
