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
    expect(describePlan(ev, null)).toMatch(/^evaluation: 10 tasks × 2 trial\(s\) = 20 rollouts, each after 3 private rehearsals \(parallel\);/);
    expect(describeEstimate(ev, { steps: 1, secondsPerRollout: 3, generationsPerRollout: null, model: "m" })).toBe(
      "Estimated time: ≈ 4m 0s at the node's recent pace (3.00 s per rollout over its last 1 step).",
    );
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
