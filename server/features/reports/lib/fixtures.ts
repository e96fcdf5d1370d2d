/** A small report document for the export and rendering tests. */
import { buildResultTable, type OutcomeCount, type ReportDocument } from "./document";

export function sampleDocument(overrides: Partial<ReportDocument> = {}): ReportDocument {
  const runs = [
    { id: "r-a", name: "EnvACE 8B" },
    { id: "r-b", name: "Backbone | baseline" },
  ];
  const outcomes: OutcomeCount[] = [
    { runId: "r-a", instanceId: "t1", dataSource: "tau2_retail", n: 4, successes: 4 },
    { runId: "r-a", instanceId: "t2", dataSource: "tau2_retail", n: 4, successes: 1 },
    { runId: "r-a", instanceId: "s1", dataSource: "shop", n: 4, successes: 0 },
    { runId: "r-b", instanceId: "t1", dataSource: "tau2_retail", n: 4, successes: 2 },
    { runId: "r-b", instanceId: "t2", dataSource: "tau2_retail", n: 4, successes: 0 },
    { runId: "r-b", instanceId: "s1", dataSource: "shop", n: 4, successes: 3 },
  ];
  return {
    title: "Retail & shop: 50% eval",
    notes: "EnvACE **beats** the backbone.",
    generatedAt: "2026-01-02T03:04:05.000Z",
    frozenAt: null,
    runs: runs.map((r) => ({ ...r, kind: "eval", paradigm: "rehearse", status: "succeeded", evaluated: { phase: "eval", step: 10 } })),
    table: buildResultTable(runs, outcomes),
    charts: [],
    ...overrides,
  };
}
