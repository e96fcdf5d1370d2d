import { describe, expect, it } from "vitest";
import { BFCL_V4_ENTRY_COUNTS, SCORING_CATEGORIES, type CategoryResult, type ScoringCategory } from "./aggregate";
import { paperRow } from "./paper";

const all = (f: (c: ScoringCategory, i: number) => number): Partial<Record<ScoringCategory, CategoryResult>> =>
  Object.fromEntries(SCORING_CATEGORIES.map((c, i) => [c, { accuracy: f(c, i), totalCount: BFCL_V4_ENTRY_COUNTS[c] }]));

describe("the paper's BFCL columns", () => {
  it("takes upstream's numbers when every category ran, Avg = Overall", () => {
    const row = paperRow(all((_, i) => (i % 7) / 10));
    const byKey = Object.fromEntries(row.columns.map((c) => [c.key, c]));
    expect(row.columns.map((c) => c.label)).toEqual(["Web", "Memory", "Multi-turn", "Non-live", "Live", "Irrelevance", "Avg"]);
    expect(byKey.web.value).toBe(row.summary.agentic.webSearch.accuracy);
    expect(byKey.nonLive.value).toBe(row.summary.nonLive.astSummary.accuracy);
    expect(byKey.live.value).toBe(row.summary.live.overall.accuracy);
    expect(byKey.avg.value).toBe(row.summary.overall.accuracy);
    expect(row.columns.every((c) => c.notRun.length === 0 && c.value !== null)).toBe(true);
    expect(row.meanOfColumns).toBeCloseTo(row.columns.slice(0, 6).reduce((a, c) => a + c.value!, 0) / 6, 12);
  });

  it("reports Web and memory_vector as not run with the reason, never 0, and a labelled partial Memory", () => {
    const results = all(() => 0.5);
    delete results.web_search_base;
    delete results.web_search_no_snippet;
    delete results.memory_vector;
    results.memory_kv = { accuracy: 0.4, totalCount: 155 };
    results.memory_rec_sum = { accuracy: 0.2, totalCount: 155 };
    const row = paperRow(results);
    const byKey = Object.fromEntries(row.columns.map((c) => [c.key, c]));
    expect(byKey.web.value).toBeNull();
    expect(byKey.web.partial).toBeUndefined();
    expect(byKey.web.note).toMatch(/web_search_base \(needs a search node/);
    expect(byKey.memory.value).toBeNull();
    expect(byKey.memory.partial).toBeCloseTo(0.3, 12);
    expect(byKey.memory.note).toMatch(/memory_vector \(needs an embedding node/);
    expect(byKey.avg.value).toBeNull();
    expect(byKey.avg.notRun.map((p) => p.category).sort()).toEqual(["memory_vector", "web_search_base", "web_search_no_snippet"]);
    expect(byKey.multiTurn.value).toBe(0.5);
    expect(row.meanOfColumns).toBeNull();
  });

  it("says which categories a subset run left out, keeping upstream's formula for the parts that ran", () => {
    const row = paperRow({ live_simple: { accuracy: 1, totalCount: 258 }, live_parallel: { accuracy: 0, totalCount: 16 }, simple_java: { accuracy: 0.5, totalCount: 100 }, multiple: { accuracy: 1, totalCount: 200 } });
    const byKey = Object.fromEntries(row.columns.map((c) => [c.key, c]));
    expect(byKey.live.partial).toBeCloseTo(258 / 274, 12);
    expect(byKey.live.note).toMatch(/live_multiple \(not evaluated in this run\)/);
    expect(byKey.nonLive.partial).toBeCloseTo(0.75, 12);
    expect(byKey.irrelevance.partial).toBeUndefined();
  });
});
