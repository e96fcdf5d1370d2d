"use client";
/** A report's content: the paper-layout result table, charts (one line per run) and notes. */
import Link from "next/link";
import { metricLabels, type ReportDocument } from "../../../lib/reports/document";
import { LineChart, palette } from "../charts/line-chart";
import { MarkdownView } from "./markdown-view";
import { TestTimeTableView } from "./test-time-table";

const pct = (v: number | null | undefined) => (v == null ? "—" : v.toFixed(2));

export function ResultTableView({ doc, linkRuns }: { doc: ReportDocument; linkRuns: boolean }) {
  const { table } = doc;
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
  const cell = (v: number | undefined, key: string) => {
    const isBest = v != null && table.rows.length > 1 && v === best.get(key);
    return <td key={key} className={`num${isBest ? " best" : ""}`}>{isBest ? <strong>{pct(v)}</strong> : pct(v)}</td>;
  };
  return (
    <div className="table-scroll">
      <table className="table result-table" data-testid="result-table">
        <caption className="muted small">
          Success rates in percent. {avg}: mean success over the k trajectories of each instance; {pass}: instances solved at least once.
          Overall: plain mean of the benchmark columns.
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
                {table.benchmarks.flatMap((b) => [cell(row.cells[b]?.avgAtK, `${b}:avgAtK`), cell(row.cells[b]?.passAtK, `${b}:passAtK`)])}
                {cell(row.overall?.avgAtK, "Overall:avgAtK")}
                {cell(row.overall?.passAtK, "Overall:passAtK")}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function ReportCharts({ doc }: { doc: ReportDocument }) {
  if (doc.charts.length === 0) return <p className="muted">No chartable metrics in these runs.</p>;
  const order = doc.runs.map((r) => r.id);
  return (
    <div className="chart-grid">
      {doc.charts.map((c) => (
        <LineChart
          key={c.key}
          title={c.key}
          xLabel="step"
          series={c.series.map((s) => ({
            id: s.runId,
            label: s.runName,
            color: palette[Math.max(0, order.indexOf(s.runId)) % palette.length]!,
            points: s.points.map((p) => ({ x: p.step, y: p.value, step: p.step })),
          }))}
        />
      ))}
    </div>
  );
}

export function ReportBody({ doc, linkRuns }: { doc: ReportDocument; linkRuns: boolean }) {
  return (
    <div className="report-body">
      <p className="muted small" data-testid="report-state">
        {doc.frozenAt ? `Frozen snapshot of ${doc.frozenAt.replace("T", " ").slice(0, 19)} UTC` : `Live results, computed ${doc.generatedAt.replace("T", " ").slice(0, 19)} UTC`}
      </p>
      <section aria-labelledby="report-results">
        <h2 id="report-results">Results</h2>
        <ResultTableView doc={doc} linkRuns={linkRuns} />
      </section>
      {doc.testTime && (
        <section aria-labelledby="report-test-time">
          <h2 id="report-test-time">Test-time rehearsal (Table 3)</h2>
          <TestTimeTableView table={doc.testTime} linkRuns={linkRuns} />
        </section>
      )}
      <section aria-labelledby="report-charts">
        <h2 id="report-charts">Charts</h2>
        <ReportCharts doc={doc} />
      </section>
      <section aria-labelledby="report-notes">
        <h2 id="report-notes">Notes</h2>
        <div data-testid="report-notes">
          <MarkdownView source={doc.notes} />
        </div>
      </section>
    </div>
  );
}
