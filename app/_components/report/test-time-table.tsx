"use client";
/** The paper's Table 3 (test-time rehearsal) in a report: methods × benchmarks, Overall and Δ (lib/reports/test-time.ts). */
import Link from "next/link";
import type { TestTimeTable } from "../../../lib/reports/test-time";
import { testTimeCaption, testTimeDeltaText } from "../../../lib/reports/test-time";

const fmt = (v: number | null | undefined) => (v == null ? "—" : v.toFixed(2));

export function TestTimeTableView({ table, linkRuns }: { table: TestTimeTable; linkRuns: boolean }) {
  // Best value per column, bold as in the paper.
  const best = new Map<string, number>();
  for (const b of [...table.benchmarks.map((x) => x.key), "overall"])
    for (const row of table.rows) {
      const v = b === "overall" ? row.overall : row.cells[b]?.value;
      if (v != null && v > (best.get(b) ?? -Infinity)) best.set(b, v);
    }
  const value = (v: number | null | undefined, key: string) => {
    const isBest = v != null && table.rows.length > 1 && v === best.get(key);
    return isBest ? <strong>{fmt(v)}</strong> : fmt(v);
  };
  return (
    <div className="table-scroll">
      <table className="table result-table tt-table" data-testid="test-time-table">
        <caption className="muted small">{testTimeCaption(table)}</caption>
        <thead>
          <tr>
            <th scope="col">Setting</th>
            {table.benchmarks.map((b) => (
              <th scope="col" key={b.key} className="num" title={b.key}>
                {b.label}
              </th>
            ))}
            <th scope="col" className="num">
              Overall
            </th>
            <th scope="col" className="num">
              Δ
            </th>
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row) => (
            <tr key={row.key} data-testid="test-time-row">
              <th scope="row">{row.label}</th>
              {table.benchmarks.map((b) => {
                const c = row.cells[b.key];
                if (!c) return <td key={b.key} className="num muted">—</td>;
                const text = c.value == null ? <span className="muted small">{c.status === "succeeded" ? "no results" : c.status}…</span> : value(c.value, b.key);
                const interval = c.interval ? `, 95 % interval [${c.interval.low.toFixed(1)}, ${c.interval.high.toFixed(1)}] (Wilson)` : "";
                const errored = c.errored ? `, ${c.errored} errored episode(s) left out` : "";
                return (
                  <td key={b.key} className="num" data-benchmark={b.key} title={`${c.runName}: ${c.instances} task(s)${c.k ? `, k = ${c.k}` : ""}${interval}${errored}`}>
                    {linkRuns ? <Link href={`/runs/${c.runId}`}>{text}</Link> : text}
                    {c.value != null && c.episodes != null ? (
                      <span className="tt-n small muted" data-testid="test-time-n">
                        {" "}
                        n = {c.episodes}
                        {c.errored ? ` (+${c.errored} errored)` : ""}
                      </span>
                    ) : null}
                  </td>
                );
              })}
              <td className="num">{value(row.overall, "overall")}</td>
              <td
                className={`num tt-delta${row.delta != null && row.delta > 0 ? " tt-pos" : row.delta != null && row.delta < 0 ? " tt-neg" : ""}`}
                data-testid="test-time-delta"
                title={row.deltaInterval ? "95 % interval in percentage points (Wilson limits per cell, combined by MOVER; Newcombe's for one benchmark)" : undefined}
              >
                {testTimeDeltaText(row)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {table.notes.map((n) => (
        <p key={n} className="small muted" role="note">
          {n}
        </p>
      ))}
    </div>
  );
}
