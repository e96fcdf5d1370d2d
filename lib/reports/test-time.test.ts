/** Table 3 from evaluation runs: rows by method (and policy), columns by benchmark, Overall and Δ; its exports. */
import { describe, expect, it } from "vitest";
import { parseRunConfig, testTimePreset, type RunConfig } from "../../contracts/run-config";
import { armConfig, armOf } from "../test-time";
import type { ReportDocument } from "./document";
import { exportReport } from "./export";
import { buildTestTimeTable, testTimeMarkdown, type TestTimeOutcome, type TestTimeRunInput } from "./test-time";

const base = (() => {
  const r = parseRunConfig({ ...testTimePreset, rollout: { ...testTimePreset.rollout, userSimulator: { node: "embedded", model: "tiny-gpt" } } });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
})();
const parse = (c: unknown): RunConfig => {
  const r = parseRunConfig(c);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
};

function run(id: string, dataset: string, arm: "none" | "parallel" | "sequential", over: Partial<RunConfig["policy"]> = {}): TestTimeRunInput {
  // BFCL kinds are not in the run-config pattern yet (issue 13): such a run is laid out like any other.
  const bfcl = dataset.startsWith("bfcl:");
  const config = parse(armConfig({ ...base, policy: { ...base.policy, ...over } }, arm, { dataset: bfcl ? "builtin:shop" : dataset }));
  return { id, name: `${dataset} ${arm}`, status: "succeeded", config: bfcl ? { ...config, data: { ...config.data, dataset } } : config };
}

/** `solved` of `tasks` tasks solved, one trial each. */
const outcomes = (runId: string, solved: number, tasks = 4, prefix = "t"): TestTimeOutcome[] =>
  Array.from({ length: tasks }, (_, i) => ({ runId, instanceId: `${prefix}${i}`, n: 1, successes: i < solved ? 1 : 0 }));

describe("armConfig / armOf", () => {
  it("derives each arm from one base config and reads it back", () => {
    const none = parse(armConfig(base, "none", { dataset: "builtin:shop" }));
    const par = parse(armConfig(base, "parallel", { dataset: "builtin:shop" }));
    const seq = parse(armConfig(base, "sequential", { dataset: "tau2:retail", split: "train", instanceIds: ["0", "1"] }));
    expect([armOf(none), armOf(par), armOf(seq)]).toEqual([
      { arm: "none", attempts: null },
      { arm: "parallel", attempts: 4 },
      { arm: "sequential", attempts: 4 },
    ]);
    // The same act sampling in every arm: the no-rehearsal arm evaluates with the test-time act/rehearse sampling.
    expect(none.sampling.evalAct).toEqual(base.testTime.sampling.act);
    expect(none.sampling.evalRehearse).toEqual(base.testTime.sampling.rehearse);
    expect(none.testTime.enabled).toBe(false);
    // Same tasks, real world, kind eval.
    expect(none.data).toEqual(par.data);
    expect([none.kind, par.rollout.paradigm, none.rollout.paradigm]).toEqual(["eval", "environment", "environment"]);
    expect(seq.data.instanceIds).toEqual(["0", "1"]);
    expect(seq.data.split).toBe("train");
    // An imported dataset has no world: its arms keep the configured paradigm.
    expect(parse(armConfig({ ...base, rollout: { ...base.rollout, paradigm: "rehearse" } }, "none", { dataset: "dataset:cm2" })).rollout.paradigm).toBe("rehearse");
  });
});

describe("buildTestTimeTable", () => {
  it("lays out methods × benchmarks with Overall and Δ in the paper's order", () => {
    const runs = [
      run("sp", "builtin:shop", "parallel"),
      run("sn", "builtin:shop", "none"),
      run("ss", "builtin:shop", "sequential"),
      run("tn", "tau2:retail", "none"),
      run("tp", "tau2:retail", "parallel"),
      run("ts", "tau2:retail", "sequential"),
      run("bn", "bfcl:multi_turn_base", "none"),
      run("bp", "bfcl:multi_turn_base", "parallel"),
      run("bs", "bfcl:multi_turn_base", "sequential"),
    ];
    const o = [
      ...outcomes("sn", 1),
      ...outcomes("sp", 3),
      ...outcomes("ss", 2),
      ...outcomes("tn", 0),
      ...outcomes("tp", 2),
      ...outcomes("ts", 1),
      ...outcomes("bn", 2),
      ...outcomes("bp", 2),
      ...outcomes("bs", 1),
    ];
    const table = buildTestTimeTable(runs, o)!;
    expect(table.benchmarks.map((b) => b.label)).toEqual(["τ²-Bench retail", "BFCL multi-turn", "Shop (built-in)"]);
    expect(table.rows.map((r) => r.label)).toEqual(["No test-time scaling", "Parallel rehearsal (N=4)", "Sequential rehearsal (N=4)"]);
    const [none, par, seq] = table.rows;
    expect(table.benchmarks.map((b) => none!.cells[b.key]!.value)).toEqual([0, 50, 25]);
    expect(none!.overall).toBe(25);
    expect(par!.overall).toBe(58.33);
    expect(par!.delta).toBe(33.33);
    expect(seq!.overall).toBe(33.33);
    expect(seq!.delta).toBe(8.33);
    expect(none!.delta).toBeNull();
    expect(table.k).toBe(1);
    expect(table.notes).toEqual([]);
    const md = testTimeMarkdown(table).join("\n");
    expect(md).toContain("| Setting | τ²-Bench retail | BFCL multi-turn | Shop (built-in) | Overall | Δ |");
    // n per cell; Δ with its 95 % interval (MOVER over the cells' Wilson limits), in points.
    expect(md).toContain("| Parallel rehearsal (N=4) | 50.00 (n = 4) | 50.00 (n = 4) | 75.00 (n = 4) | 58.33 | +33.33 [−0.2, 55.7] |");
    expect(md).toContain("| No test-time scaling | 0.00 (n = 4) | 50.00 (n = 4) | 25.00 (n = 4) | 25.00 | — |");
    expect(par!.deltaInterval).toEqual({ low: -0.19, high: 55.72 });
    expect(none!.cells["builtin:shop"]).toMatchObject({ episodes: 4, errored: 0, interval: { low: 4.56, high: 69.94 } });
  });

  it("the issue's \"+25.00 Δ on 4 tasks\" carries its n and an interval that spans zero; errored episodes are left out and said", () => {
    const table = buildTestTimeTable(
      [run("n", "builtin:shop", "none"), run("p", "builtin:shop", "parallel")],
      [
        ...outcomes("n", 2),
        ...outcomes("p", 3),
        // Two more tasks in the parallel arm could not run at all (their user simulator failed): not counted as failures.
        { runId: "p", instanceId: "t4", n: 0, successes: 0, errored: 1 },
        { runId: "p", instanceId: "t5", n: 0, successes: 0, errored: 1 },
      ],
    )!;
    const [none, par] = table.rows;
    expect(par!.cells["builtin:shop"]).toMatchObject({ value: 75, instances: 4, episodes: 4, errored: 2 });
    expect(par!.delta).toBe(25);
    // Newcombe's interval for 3/4 − 2/4.
    expect(par!.deltaInterval).toEqual({ low: -31.96, high: 65.53 });
    expect(none!.deltaInterval).toBeUndefined();
    const md = testTimeMarkdown(table).join("\n");
    expect(md).toContain("| Parallel rehearsal (N=4) | 75.00 (n = 4) | 75.00 | +25.00 [−32.0, 65.5] |");
    expect(table.notes).toContain('Shop (built-in), Parallel rehearsal (N=4): 2 episodes of "builtin:shop parallel" errored (infrastructure, not the policy) and are left out.');
  });

  it("is absent without a test-time run; waits for results; groups rows per policy; flags arms on different tasks", () => {
    expect(buildTestTimeTable([run("a", "builtin:shop", "none")], outcomes("a", 1))).toBeNull();

    const pending = buildTestTimeTable([run("n", "builtin:shop", "none"), run("p", "builtin:shop", "parallel")], outcomes("n", 2))!;
    expect(pending.rows[1]!.cells["builtin:shop"]).toMatchObject({ value: null, runId: "p" });
    expect(pending.rows[1]!.overall).toBeNull();

    const two = buildTestTimeTable(
      [run("n1", "builtin:shop", "none"), run("p1", "builtin:shop", "parallel"), run("n2", "builtin:shop", "none", { model: "trained" }), run("p2", "builtin:shop", "parallel", { model: "trained" })],
      [...outcomes("n1", 1), ...outcomes("p1", 1), ...outcomes("n2", 2), ...outcomes("p2", 4, 4, "x")],
    )!;
    expect(two.rows.map((r) => r.label)).toEqual([
      "No test-time scaling — tiny-gpt on embedded",
      "Parallel rehearsal (N=4) — tiny-gpt on embedded",
      "No test-time scaling — trained on embedded",
      "Parallel rehearsal (N=4) — trained on embedded",
    ]);
    expect(two.rows[3]!.delta).toBe(50);
    expect(two.notes).toEqual([expect.stringMatching(/^Shop \(built-in\) \(trained on embedded\): the arms evaluated different tasks/)]);

    const dup = buildTestTimeTable([run("a", "builtin:shop", "parallel"), run("b", "builtin:shop", "parallel")], [...outcomes("a", 1), ...outcomes("b", 3)])!;
    expect(dup.rows).toHaveLength(1);
    expect(dup.rows[0]!.cells["builtin:shop"]!.runId).toBe("b");
    expect(dup.notes[0]).toMatch(/is left out/);
  });

  it("travels in every export", () => {
    const table = buildTestTimeTable([run("n", "builtin:shop", "none"), run("p", "builtin:shop", "parallel")], [...outcomes("n", 1), ...outcomes("p", 3)])!;
    const doc: ReportDocument = {
      title: "TTS",
      notes: "",
      generatedAt: "2026-01-01T00:00:00.000Z",
      frozenAt: null,
      runs: [],
      table: { benchmarks: [], k: null, rows: [] },
      charts: [],
      testTime: table,
    };
    expect(exportReport(doc, "markdown")).toContain("## Test-time rehearsal (Table 3 layout)");
    expect(exportReport(doc, "latex")).toContain("Setting & Shop (built-in) & Overall & $\\Delta$ \\\\");
    expect(exportReport(doc, "latex")).toContain("Parallel rehearsal (N=4) & 75.00 (n = 4) & 75.00 & +50.00 [-13.6, 78.9] \\\\");
    expect(exportReport(doc, "csv")).toContain("test_time_setting,benchmark,k,instances,avg_at_k,n,errored,ci95_low,ci95_high");
    expect(exportReport(doc, "csv")).toContain("Parallel rehearsal (N=4),Shop (built-in),1,4,75.00,4,0,30.06,95.44");
    expect(exportReport(doc, "csv")).toContain("Parallel rehearsal (N=4),Δ,,,50.00,,,-13.55,78.91");
    expect(JSON.parse(exportReport(doc, "json")).testTime.rows).toHaveLength(2);
  });
});
