import { describe, expect, it } from "vitest";
import { buildTrainingData, computeAdvantages, groupStats, roleGroupId, type GenerationRow, type ScoredRow } from "./grpo";

const row = (g: string, t: string, role: "act" | "rehearse", score: number): ScoredRow => ({ instanceGroupId: g, trajectoryId: t, role, score });

describe("role-wise GRPO", () => {
  // Group A: two trajectories. t1 has 2 act rows (score 1) + 1 rehearse row (1); t2 has 1 act row (0) + 2 rehearse rows (0),
  // one of them invalid (−0.1). Group B: one act row only.
  const rows: ScoredRow[] = [
    row("A", "t1", "act", 1),
    row("A", "t1", "rehearse", 1),
    row("A", "t1", "act", 1),
    row("A", "t2", "act", 0),
    row("A", "t2", "rehearse", 0),
    row("A", "t2", "rehearse", -0.1),
    row("B", "t3", "act", 0.5),
  ];

  it("uses <instanceGroupId>:<role> groups and mean-only baselines by hand", () => {
    const { advantages, groups } = computeAdvantages(rows, { roleWise: true, normByStd: false });
    // A:act mean = (1+1+0)/3 = 2/3; A:rehearse mean = (1+0-0.1)/3 = 0.3; B:act group of one → mean 0.
    const expected = [1 / 3, 0.7, 1 / 3, -2 / 3, -0.3, -0.4, 0.5];
    advantages.forEach((a, i) => expect(a).toBeCloseTo(expected[i], 12));
    expect(groups.map((g) => [g.groupId, g.size])).toEqual([
      ["A:act", 3],
      ["A:rehearse", 3],
      ["B:act", 1],
    ]);
    expect(roleGroupId("s1:0:x", "rehearse")).toBe("s1:0:x:rehearse");
  });

  it("std normalisation uses the unbiased std plus 1e-6; a group of one keeps its raw score", () => {
    const { advantages } = computeAdvantages(rows, { roleWise: true, normByStd: true });
    // A:act scores 1,1,0: mean 2/3, unbiased var = (1/9+1/9+4/9)/2 = 1/3.
    const sdAct = Math.sqrt(1 / 3);
    expect(advantages[0]).toBeCloseTo((1 / 3) / (sdAct + 1e-6), 10);
    expect(advantages[3]).toBeCloseTo((-2 / 3) / (sdAct + 1e-6), 10);
    // A:rehearse scores 1,0,-0.1: mean 0.3, var = (0.49+0.09+0.16)/2 = 0.37.
    expect(advantages[1]).toBeCloseTo(0.7 / (Math.sqrt(0.37) + 1e-6), 10);
    // B: mean 0, std 1 → 0.5 / (1 + 1e-6).
    expect(advantages[6]).toBeCloseTo(0.5 / (1 + 1e-6), 12);
    expect(groupStats([2])).toEqual({ mean: 0, std: 1 });
    expect(groupStats([])).toEqual({ mean: 0, std: 1 });
  });

  it("without role-wise grouping, trajectories of an instance share one baseline", () => {
    const { advantages } = computeAdvantages(rows, { roleWise: false, normByStd: false });
    // t1 mean 1, t2 mean −0.1/3; group A mean = (1 − 0.0333…)/2.
    const t2 = -0.1 / 3;
    const meanA = (1 + t2) / 2;
    expect(advantages[0]).toBeCloseTo(1 - meanA, 12);
    expect(advantages[5]).toBeCloseTo(t2 - meanA, 12);
    expect(advantages[6]).toBeCloseTo(0.5, 12);
  });

  it("builds per-token rows with the scalar advantage repeated, skipping empty responses", () => {
    const gen: GenerationRow[] = [
      { ...row("A", "t1", "act", 1), promptTokens: [1, 2], responseTokens: [3, 4, 5], logprobs: [-1, -2, -3] },
      { ...row("A", "t1", "rehearse", 1), promptTokens: [1], responseTokens: [], logprobs: [] },
    ];
    const data = buildTrainingData(gen, [0.25, 9]);
    expect(data).toEqual([{ promptTokens: [1, 2], responseTokens: [3, 4, 5], logprobs: [-1, -2, -3], advantages: [0.25, 0.25, 0.25], role: "act" }]);
  });
});
