"use client";
/** A report's BFCL block: the paper's BFCL V4 columns per run, with a note wherever a column was not run. */
import Link from "next/link";
import { bfclCellText, type BfclTable } from "../../../lib/reports/bfcl";
import { RunNotes } from "./run-notes";

export function BfclTableView({ table, linkRuns }: { table: BfclTable; linkRuns: boolean }) {
  return (
    <div data-testid="bfcl-table">
      <div className="table-scroll">
        <table className="table result-table">
          <caption className="muted small">
            BFCL V4 accuracy in percent (Avg@k over the trials of each task), in the paper&apos;s layout. Avg is upstream&apos;s Overall Acc (10 % Non-live, 10 % Live,
            10 % Irrelevance, 30 % Multi-turn, 40 % Agentic). — marks a column with a category that was not run (never counted as 0).
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
                {row.columns.map((c) => (
                  <td key={c.key} className="num" title={c.note ?? undefined} data-testid={`bfcl-${c.key}`}>
                    {bfclCellText(c)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <RunNotes rows={table.rows} testId="bfcl-notes" />
    </div>
  );
}
