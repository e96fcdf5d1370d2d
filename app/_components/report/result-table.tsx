"use client";
/** The paper-layout result table: rows = runs, a column pair (Avg@k, pass@k) per benchmark, then Overall. */
import Link from "next/link";
import { metricLabels, type ReportDocument, type ResultTable } from "../../../lib/reports/document";
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
  const cols = [...table.benchmarks, "Overall"];
  if (table.rows.length === 0) return <p className="muted">This report has no runs.</p>;
  // Best value per column, bold as in the paper.
  const best = new Map<string, number>();
  for (const col of cols)
    for (const which of ["avgAtK", "passAtK"] as const)
      for (const row of table.rows) {
        const v = col === "Overall" ? row.overall?.[which] : row.cells[col]?.[which];
        if (v != null && v > (best.get(`${col}:${which}`) ?? -Infinity)) best.set(`${col}:${which}`, v);
      }
  const cell = (v: number | undefined, key: string, repeats?: RepeatSpread, n?: string) => {
    const isBest = v != null && table.rows.length > 1 && v === best.get(key);
    return (
      <td key={key} className={`num${isBest ? " best" : ""}`} data-testid={repeats ? "repeats-cell" : undefined}>
        {isBest ? <strong>{pct(v)}</strong> : pct(v)}
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
          Success rates in percent. {avg}: mean success over the k trajectories of each instance; {pass}: instances solved at least once.
          Overall: plain mean of the benchmark columns.
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
                {table.benchmarks.flatMap((b) => {
                  const c = row.cells[b];
                  return [cell(c?.avgAtK, `${b}:avgAtK`, c?.repeats, c?.repeats ? `${c.instances} × ${c.repeats.passes}` : undefined), cell(c?.passAtK, `${b}:passAtK`)];
                })}
                {cell(row.overall?.avgAtK, "Overall:avgAtK", row.overall?.repeats)}
                {cell(row.overall?.passAtK, "Overall:passAtK")}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
