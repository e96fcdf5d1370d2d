"use client";
/** The paper-layout result table: rows = runs, a column pair (Avg@k, pass@k) per benchmark, then Overall. */
import Link from "next/link";
import { leftOutText, metricLabels, type ReportDocument, type ResultTable } from "../../../lib/reports/document";
import { OVERALL, overallMark, resultMarks, type ResultMetric } from "../../../lib/reports/marks";
import type { RepeatSpread } from "../../../lib/reports/repeats";

const pct = (v: number | null | undefined) => (v == null ? "—" : v.toFixed(2));

export function ResultTableView({
  doc,
  linkRuns,
  table = doc.table,
  caption,
}: {
  doc: ReportDocument;
  linkRuns: boolean;
  /** A restricted table (an envace-table embed with `benchmarks:`); the document's by default. */
  table?: ResultTable;
  /** "Table 1: …" when embedded in the notes. */
  caption?: string;
}) {
  const { avg, pass } = metricLabels(table);
  const cols = [...table.benchmarks, OVERALL];
  if (table.rows.length === 0) return <p className="muted">This report has no runs.</p>;
  // Best value per column in bold as in the paper, and † on an Overall over fewer columns (lib/reports/marks.ts; the exports use the same).
  const marks = resultMarks(table);
  const cell = (row: ResultTable["rows"][number], col: string, which: ResultMetric) => {
    const c = col === OVERALL ? row.overall : row.cells[col];
    const v = c?.[which];
    // A run of independent passes: its Avg is the mean over the passes, with their spread and n.
    const repeats: RepeatSpread | undefined = which === "avgAtK" ? c?.repeats : undefined;
    const n = repeats && col !== OVERALL && row.cells[col] ? `${row.cells[col]!.instances} × ${repeats.passes}` : undefined;
    const isBest = v != null && marks.isBest(row.runId, col, which);
    const mark = v != null && col === OVERALL ? overallMark(marks, row.runId) : "";
    const text = (
      <>
        {pct(v)}
        {mark && <sup title="Overall over fewer benchmarks than the table: see the note below">{mark}</sup>}
      </>
    );
    return (
      <td key={`${col}:${which}`} className={`num${isBest ? " best" : ""}`} data-testid={repeats ? "repeats-cell" : undefined}>
        {isBest ? <strong>{text}</strong> : text}
        {repeats && (
          <div className="muted small" title={`mean of ${repeats.passes} independent passes; sample standard deviation; lowest and highest pass`}>
            ± {repeats.std.toFixed(2)} · {repeats.min.toFixed(1)}–{repeats.max.toFixed(1)}
            {n ? ` · n = ${n}` : ""}
          </div>
        )}
      </td>
    );
  };
  const anyRepeats = table.rows.some((r) => Object.values(r.cells).some((c) => c?.repeats));
  return (
    <div className="table-scroll">
      <table className="table result-table" data-testid="result-table">
        <caption className="muted small">
          {caption && <strong className="embed-caption">{caption}. </strong>}
          Success rates in percent (each benchmark&apos;s own verdict; a partial reward is no success). {avg}: mean success over the k trajectories of each instance; {pass}: instances solved at least once.
          Overall: plain mean of the benchmark columns. Episodes that errored are left out.
          {anyRepeats && " A run of independent passes shows the mean over its passes ± their standard deviation, the lowest–highest pass and n (tasks × passes)."}
        </caption>
        <thead>
          <tr>
            <th scope="col" rowSpan={2}>
              Run
            </th>
            {cols.map((c) => (
              <th scope="colgroup" colSpan={2} key={c} className="center">
                {c}
              </th>
            ))}
          </tr>
          <tr>
            {cols.map((c) => [
              <th scope="col" key={`${c}-a`} className="num">
                {avg}
              </th>,
              <th scope="col" key={`${c}-p`} className="num">
                {pass}
              </th>,
            ])}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row) => {
            const run = doc.runs.find((r) => r.id === row.runId);
            return (
              <tr key={row.runId}>
                <th scope="row">
                  {linkRuns ? <Link href={`/runs/${row.runId}`}>{row.runName}</Link> : row.runName}
                  {run?.evaluated && (
                    <div className="muted small">
                      {run.evaluated.phase} step {run.evaluated.step}
                    </div>
                  )}
                </th>
                {cols.flatMap((c) => [cell(row, c, "avgAtK"), cell(row, c, "passAtK")])}
              </tr>
            );
          })}
        </tbody>
      </table>
      {marks.footnote && (
        <p className="muted small" data-testid="result-table-footnote">
          {marks.footnote}
        </p>
      )}
      {(table.leftOut ?? []).map((l) => (
        <p key={l.runId} className="small muted" role="note" data-testid="result-left-out" title={l.example ?? undefined}>
          {l.runName}: {leftOutText(l)}.
        </p>
      ))}
    </div>
  );
}
