"use client";
/** A report's τ²-Bench block: the paper's τ² group (Retail, Telecom, Airline, Avg) per run; — where a domain was not run. */
import Link from "next/link";
import { tau2CellText, type Tau2Table } from "../../../lib/reports/tau2";
import { RunNotes } from "./run-notes";

export function Tau2TableView({ table, linkRuns }: { table: Tau2Table; linkRuns: boolean }) {
  return (
    <div data-testid="tau2-table">
      <div className="table-scroll">
        <table className="table result-table">
          <caption className="muted small">
            τ²-Bench success rate in percent (Avg@k over the trials of each task), in the paper&apos;s layout. Avg is the mean of Retail, Telecom and Airline. — marks a domain that was
            not run (never counted as 0).
          </caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              {table.columns.map((c) => (
                <th scope="col" key={c.key} className="num">
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((row) => (
              <tr key={row.runId}>
                <th scope="row">
                  {linkRuns ? <Link href={`/runs/${row.runId}`}>{row.runName}</Link> : row.runName}
                  <div className="muted small">eval step {row.step}</div>
                </th>
                {table.columns.map((c) => {
                  const cell = c.key === "avg" ? null : row.cells[c.key];
                  const title = c.key === "avg" ? (row.avg === null ? row.notes[0] : undefined) : cell ? `${cell.tasks} tasks, ${cell.trials} trials` : `${c.label} was not run`;
                  return (
                    <td key={c.key} className="num" title={title} data-testid={`tau2-${c.key}`}>
                      {tau2CellText(row, c.key)}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <RunNotes rows={table.rows} testId="tau2-notes" />
    </div>
  );
}
