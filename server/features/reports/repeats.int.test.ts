/**
 * A report of an evaluation run of independent passes (`repeats: 2`) against real Postgres: its table gives
 * Avg@k as the mean over the passes with their spread (std, min–max) and n, the exports print the spread, the
 * compare view reads every pass, and the BFCL block is the mean over the passes, noted as such.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { seedRunRows, trials } from "../../../test/fixtures/run-rows";

describe("reports of evaluations with independent passes", () => {
  let member: TestUser;
  let passes: string;
  let single: string;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp();
    passes = await seedRunRows(prisma, {
      name: "checkpoint, 2 passes",
      createdById: member.id,
      config: { kind: "eval", repeats: 2, policy: { node: "embedded", model: "tiny-gpt" } },
      // Pass 1 solves 1 of 2 tasks, pass 2 both.
      trajectories: [...trials("eval", 1, "t1", "shop", 1, 1), ...trials("eval", 1, "t2", "shop", 1, 0), ...trials("eval", 2, "t1", "shop", 1, 1), ...trials("eval", 2, "t2", "shop", 1, 1)],
      metrics: { "val/bfcl/multi_turn_base/accuracy": [0.25, 0.75], "val/bfcl/multi_turn_base/tasks": [2, 2], "val/bfcl/multi_turn_base/trials": [2, 2], "val/bfcl/summary/overall": [0.25, 0.75] },
    });
    single = await seedRunRows(prisma, {
      name: "base model",
      createdById: member.id,
      trajectories: [...trials("eval", 1, "t1", "shop", 1, 0), ...trials("eval", 1, "t2", "shop", 1, 1)],
    });
  });

  it("the result table: Avg@k is the mean over the passes, with their spread and n", async () => {
    const caller = await callerFor(member.headers);
    const { id } = await caller.reports.create({ title: "passes", body: "", runIds: [passes, single] });
    const { document } = await caller.reports.get({ id });
    const [row, base] = document.table.rows;
    expect(row!.cells.shop).toMatchObject({ avgAtK: 75, passAtK: 100, instances: 2, k: 2, repeats: { passes: 2, mean: 75, std: 35.36, min: 50, max: 100 } });
    expect(row!.overall).toMatchObject({ avgAtK: 75, repeats: { passes: 2 } });
    expect(base!.cells.shop).toMatchObject({ avgAtK: 50, k: 1 });
    expect(base!.cells.shop!.repeats).toBeUndefined();
    expect(document.runs[0]!.evaluated).toEqual({ phase: "eval", step: 2 });

    const csv = (await caller.reports.export({ id, format: "csv" })).content;
    expect(csv).toContain("run,benchmark,passes,instances,avg_mean,avg_std,avg_min,avg_max");
    expect(csv).toContain("\"checkpoint, 2 passes\",shop,2,2,75.00,35.36,50.00,100.00");
    const md = (await caller.reports.export({ id, format: "md" })).content;
    expect(md).toContain("75.00 ± 35.36");
    expect(md).toContain("A run of k independent passes shows Avg as the mean over its passes ± their standard deviation");

    // BFCL: the mean over the passes, trials summed, and a note with each pass's Avg.
    const bfcl = document.bfcl!.rows.find((r) => r.runId === passes)!;
    expect(bfcl.categories[0]).toMatchObject({ category: "multi_turn_base", accuracy: 50, tasks: 2, trials: 4 });
    expect(bfcl.notes[0]).toBe("Mean over 2 independent passes; Avg per pass 25.0, 75.0 (std 35.4)");
  });

  it("the compare view reads every pass of the run", async () => {
    const caller = await callerFor(member.headers);
    const res = await caller.compare.runs({ runIds: [passes, single] });
    expect(res.runs[0]!.evaluated).toEqual({ runId: passes, phase: "eval", step: 2, fromStep: 1 });
    expect(res.outcomes.map((r) => [r.instanceId, r.cells.map((c) => c && `${c.successes}/${c.n}`)])).toEqual([
      ["t1", ["2/2", "0/1"]],
      ["t2", ["1/2", "1/1"]],
    ]);
  });
});
