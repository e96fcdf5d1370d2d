/**
 * The marks of a result table, one definition for the app and every export (Markdown, CSV, LaTeX, JSON):
 *
 * - **Best** (bold): the highest value of a benchmark column among the rows that have one, only when at
 *   least two rows have one — a value without a competitor is not "best". Ties are all best.
 * - **Overall** is the plain mean of a row's benchmark columns, so it is comparable only between rows
 *   over the same benchmarks. A row without a value in some column has an Overall over fewer columns:
 *   it carries PARTIAL_OVERALL_MARK and the footnote names what it covers; Overall is bold only among
 *   rows over every column of the table.
 *
 * Coverage is read from the row's cells, so frozen snapshots made before this module get the same marks.
 */
import type { ResultRow, ResultTable } from "./document";

export type ResultMetric = "avgAtK" | "passAtK";
export const OVERALL = "Overall";
export const PARTIAL_OVERALL_MARK = "†";

export interface PartialOverall {
  runId: string;
  runName: string;
  /** The benchmarks its Overall averages. */
  covers: string[];
  /** The table's benchmarks it has no value for. */
  missing: string[];
}

export interface ResultMarks {
  /** Whether the row's value in the column (a benchmark or OVERALL) is the best of the column. */
  isBest(runId: string, column: string, metric: ResultMetric): boolean;
  /** Rows whose Overall covers fewer benchmarks than the table, in row order. */
  partialOverall: PartialOverall[];
  /** The footnote for PARTIAL_OVERALL_MARK, or null when every Overall covers every column. */
  footnote: string | null;
}

const value = (row: ResultRow, column: string, metric: ResultMetric) => (column === OVERALL ? row.overall?.[metric] : row.cells[column]?.[metric]);

/** The benchmarks a row's Overall averages: its columns with a value. */
export function overallCoverage(table: ResultTable, row: ResultRow): string[] {
  return table.benchmarks.filter((b) => row.cells[b] != null);
}

export function resultMarks(table: ResultTable): ResultMarks {
  const partialOverall: PartialOverall[] = [];
  const complete = new Set<string>();
  for (const row of table.rows) {
    if (!row.overall) continue;
    const covers = overallCoverage(table, row);
    if (covers.length === table.benchmarks.length) complete.add(row.runId);
    else partialOverall.push({ runId: row.runId, runName: row.runName, covers, missing: table.benchmarks.filter((b) => !covers.includes(b)) });
  }
  const best = new Set<string>();
  const id = (runId: string, column: string, metric: ResultMetric) => `${runId}\u0000${column}\u0000${metric}`;
  for (const column of [...table.benchmarks, OVERALL])
    for (const metric of ["avgAtK", "passAtK"] as const) {
      const rows = table.rows.filter((r) => value(r, column, metric) != null && (column !== OVERALL || complete.has(r.runId)));
      if (rows.length < 2) continue;
      const top = Math.max(...rows.map((r) => value(r, column, metric)!));
      for (const r of rows) if (value(r, column, metric) === top) best.add(id(r.runId, column, metric));
    }
  const footnote = partialOverall.length
    ? `${PARTIAL_OVERALL_MARK} Overall over fewer benchmarks than the table, not comparable with a full Overall: ${partialOverall
        .map((p) => `${p.runName} over ${p.covers.join(", ")} only (no ${p.missing.join(", ")})`)
        .join("; ")}.`
    : null;
  return { isBest: (runId, column, metric) => best.has(id(runId, column, metric)), partialOverall, footnote };
}

/** A row's Overall mark: PARTIAL_OVERALL_MARK when it covers fewer benchmarks than the table. */
export function overallMark(marks: ResultMarks, runId: string): string {
  return marks.partialOverall.some((p) => p.runId === runId) ? PARTIAL_OVERALL_MARK : "";
}

/** The marks as data, for the JSON export: best cells by run and column, and the partial Overalls. */
export function marksAsData(table: ResultTable) {
  const marks = resultMarks(table);
  const best: { runId: string; runName: string; column: string; metric: ResultMetric }[] = [];
  for (const row of table.rows)
    for (const column of [...table.benchmarks, OVERALL])
      for (const metric of ["avgAtK", "passAtK"] as const) if (marks.isBest(row.runId, column, metric)) best.push({ runId: row.runId, runName: row.runName, column, metric });
  return { best, partialOverall: marks.partialOverall, footnote: marks.footnote };
}
