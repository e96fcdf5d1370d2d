"use client";
/** A report's VitaBench group in the layout of the paper's Table 1: Cross, Deliv., Inst., OTA, Avg per policy and language (lib/reports/vitabench.ts). */
import Link from "next/link";
import { vitaAvgText, vitaCellText, vitaNotes, type VitaTable } from "../../../lib/reports/vitabench";

export function VitaTableView({ table, linkRuns }: { table: VitaTable; linkRuns: boolean }) {
  const notes = vitaNotes(table);
  return (
    <div data-testid="vitabench-table">
      <div className="table-scroll">
        <table className="table result-table">
          <caption className="muted small">
            VitaBench Avg@{table.k ?? "k"} in percent (upstream&apos;s average@k: the mean reward over a domain&apos;s tasks; a task scores 1 when the judge finds every rubric
            met). Avg is the mean of the four domains. — marks a domain not run (never counted as 0); results depend on the judge.
          </caption>
          <thead>
            <tr>
              <th scope="col">Policy</th>
              {table.columns.map((c) => (
                <th scope="col" key={c.key} className="num">
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((row) => (
              <tr key={row.key}>
                <th scope="row">
                  {row.label}
                  <div className="muted small">judge {row.judge}</div>
                </th>
                {row.cells.map((c) => (
                  <td
                    key={c.key}
                    className="num"
                    title={[c.value !== null ? `pass@${c.k} ${c.passAtK?.toFixed(2) ?? "—"}, pass^${c.k} ${c.passHatK?.toFixed(2) ?? "—"}, ${c.tasks} tasks, ${c.trials} trials` : null, c.note].filter(Boolean).join(" — ") || undefined}
                    data-testid={`vitabench-${c.key}`}
                  >
                    {linkRuns && c.runId && c.value !== null ? <Link href={`/runs/${c.runId}`}>{vitaCellText(c)}</Link> : vitaCellText(c)}
                  </td>
                ))}
                <td className="num" title={row.avgNote ?? undefined} data-testid="vitabench-avg">
                  {vitaAvgText(row)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {notes.length > 0 && (
        <ul className="small" data-testid="vitabench-notes">
          {notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
