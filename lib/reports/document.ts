/**
 * The report document: what a report shows, whether computed live or frozen as a snapshot, and what
 * every export is made from. Pure (no database), so the browser and the tests use the same code.
 */
import type { BfclTable } from "./bfcl";
import type { Tau2Table } from "./tau2";
import type { TestTimeTable } from "./test-time";
import type { VitaTable } from "./vitabench";
import type { Table1 } from "./table1";
import type { FinmcpTable } from "./finmcp";
import { describeErrored } from "../outcomes";
import type { RepeatSpread } from "./spread";

export interface OutcomeCount {
  runId: string;
  instanceId: string;
  dataSource: string;
  /** Trajectories of the instance in the run's evaluated set that ran (its k, less errored ones). */
  n: number;
  successes: number;
  /** Trajectories of the instance that errored (outcome "error"): left out of n and of every score. */
  errored?: number;
}

/** A run's errored episodes of one cause (lib/outcomes.ts ErrorKind), with one cause in words. */
export interface ErroredCount {
  runId: string;
  kind: string;
  count: number;
  example: string | null;
}

/** What a table left out of a run: its errored episodes, per cause. */
export interface LeftOut {
  runId: string;
  runName: string;
  errored: number;
  byKind: Record<string, number>;
  /** One of the causes, in words (e.g. "user simulator failed: prompt has 2073 tokens; …"). */
  example: string | null;
}

export interface ReportRun {
  id: string;
  name: string;
  kind: string;
  paradigm: string;
  status: string;
  /** Which trajectories the table is computed from: the latest eval step, else the last train step. */
  evaluated: { phase: "eval" | "train"; step: number } | null;
}

/** The spread of a run's independent passes (lib/reports/spread.ts). */
export type { RepeatSpread };

export interface ResultCell {
  /** Mean over instances of the success rate across its k trajectories, in percent. */
  avgAtK: number;
  /** Percent of instances with at least one success among its k trajectories. */
  passAtK: number;
  instances: number;
  /** Largest number of trajectories per instance that ran (the k). */
  k: number;
  /** Episodes the cell is computed over (absent in snapshots frozen before it was recorded). */
  episodes?: number;
  /** Episodes of the cell's tasks that errored and are left out. */
  errored?: number;
  /** A run of independent passes (`repeats`): avgAtK is the mean over the passes, with their spread (lib/reports/repeats.ts). */
  repeats?: RepeatSpread;
}

export interface ResultRow {
  runId: string;
  runName: string;
  cells: Record<string, ResultCell | null>;
  /** Plain mean of the run's benchmark columns (the paper's "Overall"). */
  overall: { avgAtK: number; passAtK: number; repeats?: RepeatSpread } | null;
}

export interface ResultTable {
  /** Benchmark / domain columns (trajectory summary.dataSource), sorted. */
  benchmarks: string[];
  /** k when every cell shares it, else null (headers then read "Avg@k"). */
  k: number | null;
  rows: ResultRow[];
  /** Runs whose errored episodes are left out of their cells (absent in older snapshots). */
  leftOut?: LeftOut[];
}

export interface ReportChart {
  key: string;
  series: { runId: string; runName: string; points: { step: number; value: number }[] }[];
}

export interface ReportDocument {
  title: string;
  notes: string;
  /** When the results were computed (ISO 8601). */
  generatedAt: string;
  /** Set when the report is a frozen snapshot (ISO 8601). */
  frozenAt: string | null;
  runs: ReportRun[];
  table: ResultTable;
  charts: ReportChart[];
  /** The paper's BFCL V4 columns for the runs that evaluated on BFCL (lib/reports/bfcl.ts); absent or null otherwise. */
  bfcl?: BfclTable | null;
  /** The paper's Table 3 when the report's evaluation runs include test-time rehearsal (lib/reports/test-time.ts); absent in older snapshots. */
  testTime?: TestTimeTable | null;
  /** The paper's τ² group (Retail, Telecom, Airline, Avg) for the runs that evaluated on τ² (lib/reports/tau2.ts); absent or null otherwise. */
  tau2?: Tau2Table | null;
  /** Table 1's VitaBench group for the runs that evaluated on VitaBench (lib/reports/vitabench.ts); absent or null otherwise. */
  vitabench?: VitaTable | null;
  /** The paper's Table 1 (BFCL V4, τ²-Bench, VitaBench, Overall), one row per evaluated policy (lib/reports/table1.ts); absent or null otherwise. */
  table1?: Table1 | null;
  /** The paper's Table 2 (FinMCP-Bench: TR, TP, TF1 and the per-group blocks; lib/reports/finmcp.ts); absent or null otherwise. */
  finmcp?: FinmcpTable | null;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** "2 episodes errored and are left out (user simulator failed: 2)". */
export function leftOutText(l: LeftOut): string {
  const causes = describeErrored(l.byKind);
  return `${l.errored} episode${l.errored === 1 ? "" : "s"} errored and ${l.errored === 1 ? "is" : "are"} left out${causes ? ` (${causes})` : ""}`;
}

/** What `errored` (per run and cause) says each run left out, for the runs that left anything out. */
export function leftOutOf(runs: { id: string; name: string }[], errored: readonly ErroredCount[]): LeftOut[] {
  return runs.flatMap((run) => {
    const mine = errored.filter((e) => e.runId === run.id && e.count > 0);
    if (mine.length === 0) return [];
    return [{ runId: run.id, runName: run.name, errored: mine.reduce((s, e) => s + e.count, 0), byKind: Object.fromEntries(mine.map((e) => [e.kind, e.count])), example: mine[0]!.example }];
  });
}

/**
 * The paper-layout result table: rows = runs, columns = benchmarks with Avg@k and pass@k, plus Overall.
 * Computed over the episodes that ran; `errored` (per run and cause) becomes the table's `leftOut`.
 */
export function buildResultTable(runs: { id: string; name: string }[], outcomes: OutcomeCount[], errored: readonly ErroredCount[] = []): ResultTable {
  const benchmarks = [...new Set(outcomes.map((o) => o.dataSource))].sort();
  const ks = new Set<number>();
  const rows = runs.map((run): ResultRow => {
    const cells: Record<string, ResultCell | null> = {};
    for (const bench of benchmarks) {
      const mine = outcomes.filter((o) => o.runId === run.id && o.dataSource === bench && o.n > 0);
      if (mine.length === 0) {
        cells[bench] = null;
        continue;
      }
      const k = Math.max(...mine.map((o) => o.n));
      ks.add(k);
      cells[bench] = {
        avgAtK: round2((100 * mine.reduce((s, o) => s + o.successes / o.n, 0)) / mine.length),
        passAtK: round2((100 * mine.filter((o) => o.successes > 0).length) / mine.length),
        instances: mine.length,
        k,
        episodes: mine.reduce((s, o) => s + o.n, 0),
        errored: outcomes.filter((o) => o.runId === run.id && o.dataSource === bench).reduce((s, o) => s + (o.errored ?? 0), 0),
      };
    }
    const present = Object.values(cells).filter((c): c is ResultCell => c != null);
    const overall = present.length
      ? {
          avgAtK: round2(present.reduce((s, c) => s + c.avgAtK, 0) / present.length),
          passAtK: round2(present.reduce((s, c) => s + c.passAtK, 0) / present.length),
        }
      : null;
    return { runId: run.id, runName: run.name, cells, overall };
  });
  return { benchmarks, k: ks.size === 1 ? [...ks][0]! : null, rows, leftOut: leftOutOf(runs, errored) };
}

/** "Avg@4" / "pass@4", or "Avg@k" when runs differ in k. */
export function metricLabels(table: ResultTable): { avg: string; pass: string } {
  const k = table.k == null ? "k" : String(table.k);
  return { avg: `Avg@${k}`, pass: `pass@${k}` };
}

/** What a share link may show: the same document without internal ids. */
export function scrubForShare(doc: ReportDocument): ReportDocument {
  const alias = new Map(doc.runs.map((r, i) => [r.id, `run-${i + 1}`]));
  const a = (id: string) => alias.get(id) ?? "run";
  return {
    ...doc,
    runs: doc.runs.map((r) => ({ ...r, id: a(r.id) })),
    table: {
      ...doc.table,
      rows: doc.table.rows.map((row) => ({ ...row, runId: a(row.runId) })),
      // Counts and kinds only: a cause in words may name internal hosts or nodes.
      ...(doc.table.leftOut ? { leftOut: doc.table.leftOut.map((l) => ({ ...l, runId: a(l.runId), example: null })) } : {}),
    },
    charts: doc.charts.map((c) => ({ ...c, series: c.series.map((s) => ({ ...s, runId: a(s.runId) })) })),
    ...(doc.bfcl ? { bfcl: { ...doc.bfcl, rows: doc.bfcl.rows.map((row) => ({ ...row, runId: a(row.runId) })) } } : {}),
    ...(doc.tau2 ? { tau2: { ...doc.tau2, rows: doc.tau2.rows.map((row) => ({ ...row, runId: a(row.runId) })) } } : {}),
    ...(doc.vitabench
      ? { vitabench: { ...doc.vitabench, rows: doc.vitabench.rows.map((row) => ({ ...row, cells: row.cells.map((c) => ({ ...c, runId: c.runId === null ? null : a(c.runId) })) })) } }
      : {}),
    ...(doc.table1
      ? { table1: { ...doc.table1, rows: doc.table1.rows.map((row) => ({ ...row, provenance: row.provenance.map((p) => ({ ...p, runs: p.runs.map((r) => ({ ...r, id: a(r.id) })) })) })) } }
      : {}),
    ...(doc.finmcp ? { finmcp: { rows: doc.finmcp.rows.map((row) => ({ ...row, runId: a(row.runId) })) } } : {}),
    testTime: doc.testTime
      ? {
          ...doc.testTime,
          rows: doc.testTime.rows.map((row) => ({
            ...row,
            cells: Object.fromEntries(Object.entries(row.cells).map(([k, c]) => [k, c ? { ...c, runId: a(c.runId) } : null])),
          })),
        }
      : doc.testTime,
  };
}
