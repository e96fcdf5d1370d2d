import { describe, expect, it } from "vitest";
import { buildResultTable, leftOutText, metricLabels, scrubForShare } from "./document";
import { toMarkdown } from "./export";
import { sampleDocument } from "../../test/fixtures/report-document";

describe("buildResultTable", () => {
  it("computes Avg@k and pass@k per benchmark and Overall as the plain mean of columns", () => {
    const { table } = sampleDocument();
    expect(table.benchmarks).toEqual(["shop", "tau2_retail"]);
    expect(table.k).toBe(4);
    const [a, b] = table.rows;
    // tau2: (4/4 + 1/4)/2 = 62.5 %; both instances solved at least once.
    expect(a!.cells.tau2_retail).toEqual({ avgAtK: 62.5, passAtK: 100, instances: 2, k: 4, episodes: 8, errored: 0 });
    expect(a!.cells.shop).toEqual({ avgAtK: 0, passAtK: 0, instances: 1, k: 4, episodes: 4, errored: 0 });
    expect(a!.overall).toEqual({ avgAtK: 31.25, passAtK: 50 });
    expect(b!.cells.tau2_retail).toEqual({ avgAtK: 25, passAtK: 50, instances: 2, k: 4, episodes: 8, errored: 0 });
    expect(b!.overall).toEqual({ avgAtK: 50, passAtK: 75 });
  });

  it("leaves a cell empty where a run did not evaluate a benchmark, and reports mixed k as k", () => {
    const table = buildResultTable(
      [
        { id: "a", name: "A" },
        { id: "b", name: "B" },
      ],
      [
        { runId: "a", instanceId: "i1", dataSource: "x", n: 4, successes: 1 },
        { runId: "b", instanceId: "i1", dataSource: "y", n: 2, successes: 2 },
      ],
    );
    expect(table.rows[0]!.cells).toEqual({ x: { avgAtK: 25, passAtK: 100, instances: 1, k: 4, episodes: 4, errored: 0 }, y: null });
    expect(table.rows[1]!.overall).toEqual({ avgAtK: 100, passAtK: 100 });
    expect(table.k).toBeNull();
    expect(metricLabels(table)).toEqual({ avg: "Avg@k", pass: "pass@k" });
  });

  it("scores over the episodes that ran and says what each run left out, and why", () => {
    const runs = [
      { id: "a", name: "A" },
      { id: "b", name: "B" },
    ];
    const table = buildResultTable(
      runs,
      [
        // 2 of 4 trials ran on i1 (1 success); i2 never ran (both its trials errored): it is no task the policy failed.
        { runId: "a", instanceId: "i1", dataSource: "x", n: 2, successes: 1, errored: 2 },
        { runId: "a", instanceId: "i2", dataSource: "x", n: 0, successes: 0, errored: 2 },
        { runId: "b", instanceId: "i1", dataSource: "x", n: 4, successes: 4, errored: 0 },
      ],
      [
        { runId: "a", kind: "user_simulator", count: 3, example: "user simulator failed: prompt has 2073 tokens; the context length is 1024" },
        { runId: "a", kind: "judge", count: 1, example: "judge failed: HTTP 503" },
      ],
    );
    expect(table.rows[0]!.cells.x).toEqual({ avgAtK: 50, passAtK: 100, instances: 1, k: 2, episodes: 2, errored: 4 });
    expect(table.leftOut).toEqual([{ runId: "a", runName: "A", errored: 4, byKind: { user_simulator: 3, judge: 1 }, example: "user simulator failed: prompt has 2073 tokens; the context length is 1024" }]);
    expect(leftOutText(table.leftOut![0]!)).toBe("4 episodes errored and are left out (user simulator failed: 3, judge failed: 1)");
    expect(toMarkdown({ ...sampleDocument(), table })).toContain("*A: 4 episodes errored and are left out (user simulator failed: 3, judge failed: 1)*");
  });

  it("gives a run without trajectories an empty row", () => {
    const table = buildResultTable([{ id: "a", name: "A" }], []);
    expect(table.rows).toEqual([{ runId: "a", runName: "A", cells: {}, overall: null }]);
    expect(table.leftOut).toEqual([]);
  });
});

describe("scrubForShare", () => {
  it("replaces run ids everywhere with neutral aliases", () => {
    const doc = sampleDocument({ charts: [{ key: "reward/mean", series: [{ runId: "r-b", runName: "B", points: [] }] }] });
    const shared = scrubForShare(doc);
    const text = JSON.stringify(shared);
    expect(text).not.toContain("r-a");
    expect(text).not.toContain("r-b");
    expect(shared.runs.map((r) => r.id)).toEqual(["run-1", "run-2"]);
    expect(shared.charts[0]!.series[0]!.runId).toBe("run-2");
    expect(shared.table.rows[1]!.runName).toBe("Backbone | baseline");
    // What a table left out travels as counts and kinds, never a cause that may name internal hosts.
    const withLeftOut = scrubForShare({ ...doc, table: { ...doc.table, leftOut: [{ runId: "r-a", runName: "A", errored: 1, byKind: { policy_node: 1 }, example: "policy node failed: connect ECONNREFUSED 10.0.0.5:8000" }] } });
    expect(withLeftOut.table.leftOut).toEqual([{ runId: "run-1", runName: "A", errored: 1, byKind: { policy_node: 1 }, example: null }]);
  });
});
