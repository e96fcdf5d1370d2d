import { describe, expect, it } from "vitest";
import { trajectoryRows } from "../worker/runner/persist";
import { syntheticStep } from "./persist";

describe("persist bench step", () => {
  it("has exactly the requested turns in 16 × 4 trajectories, with the roles and records a real step carries", () => {
    const step = syntheticStep(2, 1001);
    expect(step.trajectories).toHaveLength(64);
    expect(new Set(step.trajectories.map((t) => t.groupId)).size).toBe(16);
    const turns = step.trajectories.flatMap((t) => t.turns);
    expect(turns).toHaveLength(1001);
    expect(new Set(turns.map((t) => t.role))).toEqual(new Set(["user", "act", "rehearse"]));
    const rehearse = turns.filter((t) => t.role === "rehearse");
    expect(rehearse.every((t) => t.rehearsed && t.real && t.fidelity && t.call)).toBe(true);
    expect(turns.filter((t) => t.role === "act").some((t) => t.calls?.length === 1 && t.text.includes("<tool_call>"))).toBe(true);
    // Indexes are 0..n-1 within each trajectory, and every user turn the assistant answered is judged twice.
    for (const t of step.trajectories) {
      expect(t.turns.map((x) => x.index)).toEqual(t.turns.map((_, i) => i));
      const answered = new Set(t.turns.filter((x) => x.role === "act").map((x) => x.userTurn));
      expect(t.verdicts).toHaveLength(2 * answered.size);
    }
    const rows = trajectoryRows("run", step, "train");
    expect(rows.turns).toHaveLength(1001);
    expect(rows.verdicts.every((v) => v.turnIndex !== null)).toBe(true);
  });
});
