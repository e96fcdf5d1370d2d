import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dataDir } from "../../../lib/tau2/tasks";
import { parseOrderedJson, PyInt } from "../../../lib/python/json";
import { runScore } from "./cli/score";
import { computeMetrics, instanceResult, metricBlock, scoreRecords, toolCounts } from "./scoring";

const fixtures = join(__dirname, "../../../test/fixtures/finmcp");
const synthetic = join(dataDir(), "finmcp-synthetic/samples.json");

/** Expected outputs are upstream's evaluation.py run on the same files (scripts/finmcp/score_golden.py). */
describe("finmcp:score reproduces upstream's evaluation.py", () => {
  for (const [name, samples] of [
    ["synthetic", synthetic],
    ["edge", join(fixtures, "samples.edge.json")],
    ["tie", join(fixtures, "samples.tie.json")],
  ] as const) {
    it(`${name}: byte for byte as upstream's json.dumps of its metrics`, () => {
      const r = runScore(["--samples", samples, "--predictions", join(fixtures, `predictions.${name}.json`)]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(readFileSync(join(fixtures, `expected.${name}.json`), "utf8"));
    });
  }

  it("drops error records and skips KeyError records, as upstream's main() does", () => {
    const out = JSON.parse(runScore(["--samples", join(fixtures, "samples.edge.json"), "--predictions", join(fixtures, "predictions.edge.json")]).stdout);
    // 2, 3, 4: missing scenery, level, function.name (skipped); 6: error "timeout" (dropped); 7: error 0 is falsy (scored).
    expect(out.samples.map((s: { index: number }) => s.index)).toEqual([0, 1, 5, 7]);
    expect(out.task).toHaveProperty("any");
    expect(out.difficulty).toHaveProperty("2");
  });

  it("rounds an exact tie to even (1/32 → 0.0312)", () => {
    const out = JSON.parse(runScore(["--samples", join(fixtures, "samples.tie.json"), "--predictions", join(fixtures, "predictions.tie.json")]).stdout);
    expect(out.overall.consist_mean).toBe(0.0312);
  });

  it("stops where upstream stops (a null task) and refuses a prediction without messages_pred, naming the path", () => {
    const dir = join(fixtures, "samples.edge.json");
    const samples = parseOrderedJson(readFileSync(dir, "utf8")) as Map<string, unknown>[];
    const record = new Map(samples[0] as Map<string, never>);
    record.set("task", null as never);
    record.set("messages_pred", [] as never);
    expect(() => instanceResult(record as never, 3)).toThrow("record 3: AttributeError: 'NoneType' object has no attribute 'replace'");
    const bad = runScore(["--samples", synthetic, "--predictions", join(fixtures, "samples.edge.json")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/predictions for 6 samples|messages_pred: required/);
    expect(runScore([]).code).toBe(2);
  });
});

describe("the scorer's parts", () => {
  it("counts multisets: duplicates, order and arguments ignored", () => {
    expect(toolCounts(["A", "A", "B"], ["A", "C"])).toEqual({ TP: 1, FP: 2, FN: 1 });
    expect(toolCounts([], [])).toEqual({ TP: 0, FP: 0, FN: 0 });
  });

  it("keeps Python's int 0 for zero denominators and zeros everything without records", () => {
    const b = metricBlock([{ TP: 0, FP: 0, FN: 2, consist: 0 }]);
    expect(b.micro_Precision).toBeInstanceOf(PyInt);
    expect(b.micro_Recall).toBe(0);
    const none = computeMetrics([]).overall;
    expect(Object.values(none).every((v) => v instanceof PyInt && v.value === 0)).toBe(true);
    expect(scoreRecords([]).scored).toEqual([]);
  });
});
