import { describe, expect, it } from "vitest";
import { parseRunConfig, presets, type RunConfigInput } from "@/contracts/run-config";
import { describeEstimate, describePlan, maxGenerationsPerRollout } from "./run-summary";
import { formSections, panelsOf } from "./schema-form";

const cfg = (input: RunConfigInput) => {
  const p = parseRunConfig(input);
  if (!p.ok) throw new Error(JSON.stringify(p.errors));
  return p.config;
};

describe("run summary", () => {
  const quick = cfg(presets.quickstart.config);

  it("explains rollouts and generations per step, measured when the node has history", () => {
    expect(describePlan(quick, { steps: 10, secondsPerRollout: 2, generationsPerRollout: 5.5, model: "tiny-gpt" })).toBe(
      '40 steps × 8 tasks × 4 rollouts = 32 rollouts per step, 1,280 in all; ≈ 176 generations per step (5.5 per rollout on this node); rehearse paradigm with shadow execution (rehearsals grounded, weight 1) on node "embedded" (tiny-gpt); checkpoint every 10, evaluate every 10.',
    );
  });

  it("names the evaluation suites, besides or instead of the run's own split", () => {
    const suites = [
      { name: "bfcl", dataset: "bfcl:multi_turn_base", instanceIds: ["multi_turn_base_0", "multi_turn_base_1"] },
      { name: "shop", dataset: "builtin:shop", limit: 5, repeats: 2 },
    ];
    const both = cfg({ ...presets.quickstart.config, schedule: { ...presets.quickstart.config.schedule, evalSuites: suites } });
    expect(describePlan(both, null)).toMatch(/evaluate every 10 on its own split and the suites bfcl \(bfcl:multi_turn_base, 2 tasks × 1\), shop \(builtin:shop, 5 tasks × 2\)\.$/);
    const only = cfg({ ...presets.quickstart.config, schedule: { ...presets.quickstart.config.schedule, evalOwnSplit: false, evalSuites: suites.slice(1) } });
    expect(describePlan(only, null)).toMatch(/evaluate every 10 on the suite shop \(builtin:shop, 5 tasks × 2\) only\.$/);
  });

  it("says how often the training state is saved when not after every step", () => {
    expect(describePlan(quick, null)).not.toContain("training state");
    const every5 = cfg({ ...presets.quickstart.config, schedule: { ...presets.quickstart.config.schedule, stateEvery: 5 } });
    expect(describePlan(every5, null)).toMatch(/checkpoint every 10, evaluate every 10; training state every 5 steps \(a resume replays up to 4\)\.$/);
  });

  it("bounds generations by the turn limit without history", () => {
    expect(maxGenerationsPerRollout(quick)).toBe(8); // 4 act turns, each rehearsed
    expect(describePlan(quick, null)).toContain("up to 256 generations per step (at most 8 per rollout: 4 act turns, each with its rehearsal)");
    const env = cfg({ ...presets.environmentBaseline.config });
    expect(maxGenerationsPerRollout(env)).toBe(4);
  });

  it("estimates time from the node's pace, or says why not", () => {
    expect(describeEstimate(quick, { steps: 20, secondsPerRollout: 1.5, generationsPerRollout: null, model: null })).toBe(
      "Estimated time: ≈ 32m 0s for the 40 training steps at the node's recent pace (1.50 s per rollout over its last 20 steps, other models); evaluations add to it.",
    );
    expect(describeEstimate(quick, null)).toBe('No time estimate: node "embedded" has no committed steps yet.');
    expect(describeEstimate(quick, undefined)).toMatch(/^Estimating/);
    const ev = cfg({ kind: "eval", data: { instancesPerStep: 10 }, trialsPerTask: 2, testTime: { enabled: true, attempts: 3 } });
    expect(describePlan(ev, null)).toMatch(/^evaluation: 10 tasks \(drawn from the train split\) × 2 trial\(s\) = 20 rollouts, each after 3 private rehearsals \(parallel\);/);
    expect(describeEstimate(ev, { steps: 1, secondsPerRollout: 3, generationsPerRollout: null, model: "m" })).toBe(
      "Estimated time: ≈ 4m 0s at the node's recent pace (3.00 s per rollout over its last 1 step).",
    );
  });
});

describe("an evaluation's tasks, as its environment chooses them", () => {
  it("counts every task of the BFCL categories (as the picker does), the instance ids entered, a sample otherwise", () => {
    const bfcl = cfg(presets.bfclEval.config);
    expect(describePlan(bfcl, null)).toMatch(/^evaluation: 800 tasks \(every task of bfcl:multi_turn\) × 1 trial\(s\) = 800 rollouts;/);
    const six = cfg({ ...presets.bfclEval.config, data: { dataset: "bfcl:multi_turn", instanceIds: ["multi_turn_base_0", "multi_turn_base_1", "multi_turn_base_2", "multi_turn_base_3", "multi_turn_base_4", "multi_turn_base_5"] }, trialsPerTask: 2 });
    expect(describePlan(six, null)).toMatch(/^evaluation: 6 tasks \(data\.instanceIds\) × 2 trial\(s\) = 12 rollouts;/);
    expect(describeEstimate(six, { steps: 1, secondsPerRollout: 10, generationsPerRollout: null, model: "tiny-gpt" })).toBe(
      "Estimated time: ≈ 2m 0s at the node's recent pace (10.0 s per rollout over its last 1 step).",
    );
    const shop = cfg({ kind: "eval", data: { dataset: "builtin:shop", split: "test", instancesPerStep: 8, instanceIds: ["a", "b", "c"] } });
    expect(describePlan(shop, null)).toMatch(/^evaluation: 3 tasks \(data\.instanceIds\) × 1 trial\(s\) = 3 rollouts;/);
    const imported = cfg({ kind: "eval", data: { dataset: "dataset:cm2", instancesPerStep: 16 }, reward: { judge: { node: "j", model: "m" } } });
    expect(describePlan(imported, null)).toMatch(/^evaluation: up to 16 tasks \(drawn from the train split\) × 1 trial\(s\) = up to 16 rollouts;/);
  });

  it("an evaluation of a checkpoint in independent passes: which checkpoint, the passes and their rollouts, the time for all of them", () => {
    const c = cfg({ kind: "eval", policy: { node: "embedded", model: "tiny-gpt", checkpoint: { run: "my-run", step: 40 } }, data: { dataset: "builtin:shop", split: "test", instanceIds: ["a", "b", "c"] }, repeats: 4 });
    expect(describePlan(c, null)).toMatch(/^evaluation: 3 tasks \(data\.instanceIds\) × 1 trial\(s\) = 3 rollouts, in 4 independent passes \(12 rollouts in all; Avg@k is their mean\);/);
    expect(describePlan(c, null)).toContain('of the checkpoint of run my-run at step 40 (trained from tiny-gpt) on node "embedded".');
    expect(describeEstimate(c, { steps: 1, secondsPerRollout: 10, generationsPerRollout: null, model: "tiny-gpt" })).toBe(
      "Estimated time: ≈ 2m 0s at the node's recent pace (10.0 s per rollout over its last 1 step).",
    );
  });

  it("counts every task of a VitaBench domain's file in its language, with upstream's paradigm", () => {
    const vita = cfg(presets.vitabenchEval.config);
    expect(describePlan(vita, null)).toMatch(/^evaluation: 100 tasks \(every task of delivery\/tasks_en\.json\) × 4 trial\(s\) = 400 rollouts; .*environment paradigm \(VitaBench evaluation runs the real tools\)/);
  });

  it("says tau2 evaluates its whole split, with no count or time it cannot know", () => {
    const tau2 = cfg({ kind: "eval", data: { dataset: "tau2:retail" }, rollout: { userSimulator: { node: "u", model: "m" } } });
    expect(describePlan(tau2, null)).toBe(
      'evaluation: every task of the tau2:retail train split × 1 trial(s); up to 30 generations per rollout; environment paradigm (tau2 evaluation runs the real tools) on node "embedded" (tiny-gpt).',
    );
    expect(describeEstimate(tau2, { steps: 1, secondsPerRollout: 3, generationsPerRollout: null, model: "m" })).toMatch(/^No time estimate: the number of tasks \(every task of the tau2:retail train split\) is known once the run starts/);
  });
});

describe("form sections", () => {
  const sections = formSections();

  it("puts every setting in one section, advanced ones apart", () => {
    const data = sections.find((s) => s.key === "data")!;
    expect(data.basic.map((s) => s.key)).toContain("data.instancesPerStep");
    expect(data.advanced.map((s) => s.key)).toContain("data.seed");
    expect(sections.find((s) => s.key === "sampling")!.collapsed).toBe(true);
  });

  it("names the panels to open for an error", () => {
    expect(panelsOf(sections, "reward.judgeTimeoutS")).toEqual(["reward:advanced"]);
    expect(panelsOf(sections, "sampling.act.temperature")).toEqual(["sampling"]);
    expect(panelsOf(sections, "data.instancesPerStep")).toEqual([]);
  });
});
