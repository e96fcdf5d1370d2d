import { describe, expect, it } from "vitest";
import { trajectoryRows } from "../worker/runner/persist";
import { PAPER_SHAPE, paperStep, rawBytes } from "./persist-paper";

describe("paper-shape persist bench step", () => {
  const shape = { ...PAPER_SHAPE, groups: 2, k: 2 };
  const step = paperStep(2, shape);

  it("has the paper's rollout shape: 3 user turns × (10 calls + a reply), 2,000-token generations, 45 verdicts", () => {
    expect(step.trajectories).toHaveLength(4);
    for (const t of step.trajectories) {
      const roles = t.turns.map((x) => x.role);
      expect(roles.filter((r) => r === "user")).toHaveLength(3);
      expect(roles.filter((r) => r === "act")).toHaveLength(33);
      expect(roles.filter((r) => r === "rehearse")).toHaveLength(30);
      expect(t.turns.map((x) => x.index)).toEqual(t.turns.map((_, i) => i));
      for (const g of t.turns.filter((x) => x.role !== "user")) {
        expect(g.text.length).toBeGreaterThan(7500);
        expect(g.text.length).toBeLessThanOrEqual(8100);
        expect(g.text.startsWith("<think>")).toBe(true);
      }
      expect(t.verdicts).toHaveLength(45);
    }
    // Every verdict sits on an act step of its user turn.
    expect(trajectoryRows("run", step, "train").verdicts.every((v) => v.turnIndex !== null)).toBe(true);
  });

  it("is the same step on every build (seeded), with distinct prose in each generation", () => {
    const again = paperStep(2, shape);
    expect(again.trajectories.map((t) => t.turns.map((x) => x.text))).toEqual(step.trajectories.map((t) => t.turns.map((x) => x.text)));
    const texts = step.trajectories.flatMap((t) => t.turns.filter((x) => x.role === "act").map((x) => x.text));
    expect(new Set(texts).size).toBe(texts.length);
    expect(rawBytes(step)).toBeGreaterThan(4 * 63 * 7500);
  });
});
