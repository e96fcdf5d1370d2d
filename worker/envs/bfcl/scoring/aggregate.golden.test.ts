/**
 * The aggregation against upstream's: test/fixtures/bfcl/score/aggregate-goldens.json was produced by
 * scripts/bfcl/st_goldens_score.py, which feeds synthetic per-category results to upstream's
 * `generate_leaderboard_csv` and records the rows it builds (full precision) and the CSV it writes.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pyFloatRepr } from "../../../../lib/python/json";
import { aggregateBfcl, isScoringCategory, pyFixed2, type CategoryResult, type ScoringCategory } from "../../../../lib/bfcl/aggregate";
import { leaderboardCsv, leaderboardRows, type LeaderboardFile } from "./leaderboard";

interface Golden {
  results: Record<string, [number, number]>;
  rows: Record<LeaderboardFile, string[]>;
  csv: Record<LeaderboardFile, string>;
}
const goldens: Golden[] = JSON.parse(readFileSync(path.resolve(__dirname, "../../../../test/fixtures/bfcl/score/aggregate-goldens.json"), "utf8"));
const model = { displayName: "plain", url: "https://example.invalid/plain", org: "test", license: "n/a" };

describe("aggregation matches upstream's eval_runner_helper", () => {
  it("has cases with none, some and all categories", () => {
    expect(goldens.length).toBeGreaterThan(40);
    expect(goldens.some((g) => Object.keys(g.results).length === 0)).toBe(true);
    expect(goldens.some((g) => Object.keys(g.results).length === 22)).toBe(true);
  });

  goldens.forEach((g, i) => {
    it(`case ${i}: every cell at full precision and the CSV text`, () => {
      const results: Partial<Record<ScoringCategory, CategoryResult>> = {};
      for (const [c, [accuracy, totalCount]] of Object.entries(g.results)) {
        if (!isScoringCategory(c)) throw new Error(c);
        results[c] = { accuracy, totalCount };
      }
      const rows = leaderboardRows(aggregateBfcl(results), model);
      for (const file of Object.keys(g.rows) as LeaderboardFile[]) {
        expect(rows[file].map((c) => (typeof c === "number" ? "f:" + pyFloatRepr(c) : c))).toEqual(g.rows[file]);
      }
      expect(leaderboardCsv(rows)).toEqual(g.csv);
    });
  });

  it("formats like Python's {:.2f} on exact ties", () => {
    expect(pyFixed2(12.125)).toBe("12.12");
    expect(pyFixed2(12.375)).toBe("12.38");
    expect(pyFixed2(0.125)).toBe("0.12");
    expect(pyFixed2(67.125)).toBe("67.12");
    expect(pyFixed2(1.005)).toBe("1.00"); // 1.005 is below 1.005 in binary
  });
});
