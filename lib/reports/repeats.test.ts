import { describe, expect, it } from "vitest";
import { buildResultTable, type OutcomeCount } from "./document";
import { poolBfclPasses, spreadOf, spreadText, withRepeats } from "./repeats";

const run = { id: "r1", name: "ckpt eval" };
const outcome = (instanceId: string, n: number, successes: number): OutcomeCount => ({ runId: run.id, instanceId, dataSource: "shop", n, successes });

describe("independent passes (repeats)", () => {
  it("spreads: mean, sample std, min, max and the count", () => {
    expect(spreadOf([40, 50])).toEqual({ passes: 2, mean: 45, std: Math.sqrt(50), min: 40, max: 50 });
    expect(spreadOf([30])).toMatchObject({ passes: 1, std: 0 });
    expect(spreadOf([])).toBeNull();
    expect(spreadText(spreadOf([40, 50])!)).toBe("45.0 ± 7.1 (40.0–50.0, 2 passes)");
  });

  it("reports Avg@k of a multi-pass run as the mean over its passes, with their spread", () => {
    // Pass 1 solves 2 of 4 tasks, pass 2 solves 4 of 4.
    const pass1 = buildResultTable([run], [outcome("a", 1, 1), outcome("b", 1, 1), outcome("c", 1, 0), outcome("d", 1, 0)]);
    const pass2 = buildResultTable([run], [outcome("a", 1, 1), outcome("b", 1, 1), outcome("c", 1, 1), outcome("d", 1, 1)]);
    const all = buildResultTable([run], [outcome("a", 2, 2), outcome("b", 2, 2), outcome("c", 2, 1), outcome("d", 2, 1)]);
    const table = withRepeats(all, [
      { runId: run.id, pass: 1, table: pass1 },
      { runId: run.id, pass: 2, table: pass2 },
    ]);
    const cell = table.rows[0]!.cells.shop!;
    expect(cell.avgAtK).toBe(75);
    expect(cell.repeats).toEqual({ passes: 2, mean: 75, std: 35.36, min: 50, max: 100 });
    expect(cell.k).toBe(2);
    expect(cell.instances).toBe(4);
    expect(table.rows[0]!.overall).toMatchObject({ avgAtK: 75, repeats: { passes: 2, min: 50, max: 100 } });
    // A single-pass run is left as it is.
    expect(withRepeats(all, [{ runId: run.id, pass: 1, table: pass1 }]).rows[0]!.cells.shop!.repeats).toBeUndefined();
  });

  it("pools BFCL metrics of a multi-pass run: accuracies averaged, trials summed, tasks kept", () => {
    const points = [
      { runId: "r1", key: "val/bfcl/multi_turn_base/accuracy", step: 1, value: 0.2 },
      { runId: "r1", key: "val/bfcl/multi_turn_base/accuracy", step: 2, value: 0.4 },
      { runId: "r1", key: "val/bfcl/multi_turn_base/tasks", step: 1, value: 5 },
      { runId: "r1", key: "val/bfcl/multi_turn_base/tasks", step: 2, value: 5 },
      { runId: "r1", key: "val/bfcl/multi_turn_base/trials", step: 1, value: 5 },
      { runId: "r1", key: "val/bfcl/multi_turn_base/trials", step: 2, value: 5 },
      { runId: "r2", key: "val/bfcl/multi_turn_base/accuracy", step: 3, value: 0.9 },
    ];
    const { points: pooled, passes } = poolBfclPasses(points, new Set(["r1"]));
    const v = (runId: string, key: string) => pooled.find((p) => p.runId === runId && p.key === `val/bfcl/multi_turn_base/${key}`);
    expect(v("r1", "accuracy")).toMatchObject({ step: 2 });
    expect(v("r1", "accuracy")!.value).toBeCloseTo(0.3);
    expect(v("r1", "tasks")!.value).toBe(5);
    expect(v("r1", "trials")!.value).toBe(10);
    expect(v("r2", "accuracy")).toMatchObject({ step: 3, value: 0.9 });
    expect(passes.get("r1")).toEqual([1, 2]);
  });
});
