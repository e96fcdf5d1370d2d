/**
 * Independent passes of an evaluation (`repeats: k`, each pass committed as eval step 1…k): the paper's
 * Avg@k is the mean over the k passes of each pass's score, reported with the spread of the passes
 * (sample standard deviation, min and max) and n. This differs from `trialsPerTask`, the rollouts of each
 * task within ONE pass, over which pass^k (τ²) and pass@k are computed. Pure.
 */
import type { BfclTable, MetricPointRow } from "./bfcl";
import type { ResultTable } from "./document";
import { spreadOf, type RepeatSpread } from "./spread";

export { spreadOf, spreadText, type RepeatSpread } from "./spread";

const round2 = (x: number) => Math.round(x * 100) / 100;

const rounded = (s: RepeatSpread): RepeatSpread => ({ passes: s.passes, mean: round2(s.mean), std: round2(s.std), min: round2(s.min), max: round2(s.max) });

/** One pass's result table of one run (the table built from that pass's trajectories alone). */
export interface PassTable {
  runId: string;
  pass: number;
  table: ResultTable;
}

/**
 * The result table with each multi-pass run's cells as the paper reports them: Avg@k = the mean of the
 * passes' Avg values, with their spread (`repeats`); Overall likewise, over the passes' Overall values.
 * pass@k, instances and k stay as computed over all passes together.
 */
export function withRepeats(table: ResultTable, passTables: readonly PassTable[]): ResultTable {
  const rows = table.rows.map((row) => {
    const mine = passTables.filter((p) => p.runId === row.runId).sort((a, b) => a.pass - b.pass);
    if (mine.length < 2) return row;
    const passRow = (p: PassTable) => p.table.rows.find((r) => r.runId === row.runId);
    const cells = Object.fromEntries(
      Object.entries(row.cells).map(([bench, cell]) => {
        if (!cell) return [bench, cell];
        const spread = spreadOf(mine.map((p) => passRow(p)?.cells[bench]?.avgAtK).filter((x): x is number => x !== undefined));
        return [bench, spread && spread.passes > 1 ? { ...cell, avgAtK: round2(spread.mean), repeats: rounded(spread) } : cell];
      }),
    );
    const overall = row.overall ? spreadOf(mine.map((p) => passRow(p)?.overall?.avgAtK).filter((x): x is number => x !== undefined)) : null;
    return {
      ...row,
      cells,
      overall: row.overall && overall && overall.passes > 1 ? { ...row.overall, avgAtK: round2(overall.mean), repeats: rounded(overall) } : row.overall,
    };
  });
  return { ...table, rows };
}

/**
 * BFCL metric points of multi-pass evaluation runs pooled into one step per run (the last pass): accuracies
 * and upstream's aggregates are the mean over the passes, trial counts their sum; other runs' points are
 * left as they are. `passes` gives, per run id, how many passes each pooled run had (for the row's note).
 */
export function poolBfclPasses(points: readonly MetricPointRow[], multiPassRuns: ReadonlySet<string>): { points: MetricPointRow[]; passes: Map<string, number[]> } {
  const out: MetricPointRow[] = [];
  const passes = new Map<string, number[]>();
  const byKey = new Map<string, MetricPointRow[]>();
  for (const p of points) {
    if (!multiPassRuns.has(p.runId)) out.push(p);
    else byKey.set(`${p.runId}\0${p.key}`, [...(byKey.get(`${p.runId}\0${p.key}`) ?? []), p]);
  }
  for (const group of byKey.values()) {
    const { runId, key } = group[0]!;
    const steps = group.map((p) => p.step).sort((a, b) => a - b);
    passes.set(runId, [...new Set([...(passes.get(runId) ?? []), ...steps])].sort((a, b) => a - b));
    const values = group.map((p) => p.value);
    const counted = /\/(trials|not_scored|errored)$/.test(key);
    const value = counted ? values.reduce((s, x) => s + x, 0) : /\/tasks$/.test(key) ? Math.max(...values) : values.reduce((s, x) => s + x, 0) / values.length;
    out.push({ runId, key, step: Math.max(...steps), value });
  }
  return { points: out, passes };
}

/** Note on each pooled BFCL row: its values are means over the passes, with the passes' Avg column. */
export function noteBfclPasses(table: BfclTable | null, points: readonly MetricPointRow[], passes: Map<string, number[]>): BfclTable | null {
  if (!table) return table;
  return {
    ...table,
    rows: table.rows.map((row) => {
      const steps = passes.get(row.runId);
      if (!steps || steps.length < 2) return row;
      const avg = steps.map((s) => points.find((p) => p.runId === row.runId && p.step === s && p.key === "val/bfcl/summary/overall")?.value).filter((v): v is number => v !== undefined);
      const spread = spreadOf(avg.map((v) => 100 * v));
      const note = `Mean over ${steps.length} independent passes${spread ? `; Avg per pass ${avg.map((v) => (100 * v).toFixed(1)).join(", ")} (std ${spread.std.toFixed(1)})` : ""}`;
      return { ...row, notes: [note, ...row.notes] };
    }),
  };
}
