"use client";
/** A run's BFCL results: the paper's columns and every category's Avg@k, from its latest BFCL evaluation. */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../_lib/trpc";
import { bfclCellText } from "../../../lib/reports/bfcl";

export function BfclResults({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.runs.bfcl.queryOptions({ runId }));
  if (q.error) return <p role="alert" className="error">{q.error.message}</p>;
  const row = q.data;
  if (!row) return null;
  return (
    <section aria-labelledby="run-bfcl-heading" data-testid="bfcl-results">
      <h2 id="run-bfcl-heading">BFCL results</h2>
      <div className="card">
        <div className="table-scroll">
          <table className="table result-table">
            <caption className="muted small">
              Evaluation step {row.step}: accuracy in percent in the paper&apos;s layout (Avg = upstream&apos;s Overall Acc). — marks a column with a category
              that was not run.
            </caption>
            <thead>
              <tr>
                {row.columns.map((c) => (
                  <th key={c.key} scope="col" className="num">
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              <tr>
                {row.columns.map((c) => (
                  <td key={c.key} className="num" title={c.note ?? undefined}>
                    {bfclCellText(c)}
                  </td>
                ))}
              </tr>
            </tbody>
          </table>
        </div>
        <div className="table-scroll">
          <table className="table" data-testid="bfcl-categories">
            <thead>
              <tr>
                <th scope="col">Category</th>
                <th scope="col" className="num">
                  Avg@k (%)
                </th>
                <th scope="col" className="num">
                  Tasks
                </th>
                <th scope="col" className="num">
                  Trials scored
                </th>
                <th scope="col" className="num">
                  Not scored
                </th>
              </tr>
            </thead>
            <tbody>
              {row.categories.map((c) => (
                <tr key={c.category} data-category={c.category}>
                  <th scope="row">{c.category}</th>
                  <td className="num">{c.accuracy === null ? "—" : c.accuracy.toFixed(2)}</td>
                  <td className="num">
                    {c.tasks}
                    {c.tasks < c.of ? <span className="muted small"> of {c.of}</span> : null}
                  </td>
                  <td className="num">{c.trials}</td>
                  <td className="num">{c.notScored || ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {row.notes.length > 0 && (
          <ul className="small muted" data-testid="bfcl-run-notes">
            {row.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        )}
        <p className="small">
          <Link href={`/runs/${runId}/trajectories?phase=eval&rewardMax=0`}>Browse the failing tasks</Link> — each names the check that failed.
        </p>
      </div>
    </section>
  );
}
