/** VitaBench's rewards and metrics against upstream's evaluate_simulation and compute_metrics (scripts/vitabench/oracle.py score). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runScoreCase } from "./cli/score";
import { numpySum, passAtK, passHatK, rewardOfVerdicts, vitaMetrics } from "./scoring";

const lines = (name: string) => readFileSync(new URL(`../../../test/fixtures/vitabench/${name}`, import.meta.url), "utf8").split("\n").filter((l) => l.trim());

describe("VitaBench scoring", () => {
  it("gives upstream's rewards, partial scores, pass^k, pass@k and average@k bit for bit", () => {
    const golden = lines("score.golden.jsonl").map((l) => JSON.parse(l));
    expect(lines("score.cases.jsonl").map((c) => JSON.parse(runScoreCase(c)))).toEqual(golden);
  });
  it("scores premature endings 0 without a judge and tasks without criteria 1", () => {
    expect(rewardOfVerdicts("max_steps", [true])).toEqual({ reward: 0, partial: null });
    expect(rewardOfVerdicts("invalid_agent_message", null)).toEqual({ reward: 0, partial: null });
    expect(rewardOfVerdicts("user_stop", null)).toEqual({ reward: 1, partial: null });
    expect(rewardOfVerdicts("agent_stop", [true, false])).toEqual({ reward: 0, partial: 0.5 });
  });
  it("pass^k, pass@k by their formulas; pandas' pairwise sum", () => {
    expect(passHatK(4, 2, 2)).toBeCloseTo(1 / 6, 15);
    expect(passAtK(4, 1, 2)).toBeCloseTo(0.5, 15);
    expect(passAtK(4, 3, 2)).toBe(1);
    // numpy sums 8 lanes then folds them: np.sum([0.1] * 10) is 1.0, Python's sum 0.9999999999999999.
    const a = Array(10).fill(0.1);
    expect(numpySum(a)).toBe(1);
    expect(a.reduce((s, x) => s + x, 0)).toBe(0.9999999999999999);
    expect(vitaMetrics([], 1)).toBeNull();
  });
});
