"use client";
/**
 * The paper's Table 1 (lib/reports/table1.ts): BFCL V4, τ²-Bench and VitaBench under a grouped header, then Overall;
 * a row per evaluated policy. — marks a column without a result (its reason as the cell's tooltip and in the notes),
 * † a partial average; best in bold and second best underlined among rows with the same columns. Each row's
 * provenance (how it was made) is listed below the table, numbered as the rows are.
 */
import Link from "next/link";
import { PARTIAL_MARK, provenanceLines, table1CellText, table1Notes, TABLE1_COLUMNS, TABLE1_GROUPS, type Table1 } from "../../../lib/reports/table1";

export function Table1View({ table, linkRuns }: { table: Table1; linkRuns: boolean }) {
  const notes = table1Notes(table);
  return (
    <div data-testid="table1">
      <div className="table-scroll">
        <table className="table result-table">
          <caption className="muted small">
            Percent. — marks a column without a result (never counted as 0); {PARTIAL_MARK} an average over a part of its columns (not the paper&apos;s number, never bolded);
            best in bold, second best underlined, only among rows with the same columns; ± the standard deviation over independent passes. BFCL Avg is upstream&apos;s
            Overall Acc (agentic 40 % — web search and memory halves —, multi-turn 30 %, live, non-live and irrelevance 10 % each); τ² Avg the mean of its three domains,
            VitaBench Avg the mean of its four; Overall the mean of the three averages.
          </caption>
          <thead>
            <tr>
              <th scope="col" rowSpan={2}>
                Policy
              </th>
              {TABLE1_GROUPS.map((g) => (
                <th scope="colgroup" colSpan={g.columns.length} key={g.key} className="center" data-testid={`table1-group-${g.key}`}>
                  {g.label}
                </th>
              ))}
              <th scope="col" rowSpan={2} className="num">
                Overall
              </th>
            </tr>
            <tr>
              {TABLE1_COLUMNS.filter((c) => c.group).map((c) => (
                <th scope="col" key={c.id} className="num">
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((row, i) => (
              <tr key={row.key}>
                <th scope="row">
                  {row.label}
                  <sup>[{i + 1}]</sup>
                </th>
                {row.cells.map((c) => {
                  const text = table1CellText(c);
                  const title = [c.note, c.spread ? `${c.spread.passes} passes, ${c.spread.min.toFixed(2)}–${c.spread.max.toFixed(2)}` : null].filter(Boolean).join("; ") || undefined;
                  return (
                    <td key={c.id} className="num" title={title} data-testid={`table1-${c.id}`} data-rank={c.rank ?? undefined} data-partial={c.partial || undefined}>
                      {c.rank === 1 ? <strong>{text}</strong> : c.rank === 2 ? <u>{text}</u> : text}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {notes.length > 0 && (
        <ul className="small" data-testid="table1-notes">
          {notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
      <div className="small" data-testid="table1-provenance">
        <strong>How each row was made</strong>
        <ol>
          {table.rows.map((row) => (
            <li key={row.key}>
              {row.label}
              <ul>
                {provenanceLines(row).map((l) => (
                  <li key={l}>{l}</li>
                ))}
                {linkRuns && (
                  <li>
                    Runs:{" "}
                    {row.provenance
                      .flatMap((p) => p.runs)
                      .map((r, j) => (
                        <span key={`${r.id}-${j}`}>
                          {j > 0 && ", "}
                          <Link href={`/runs/${r.id}`}>{r.name}</Link>
                        </span>
                      ))}
                  </li>
                )}
              </ul>
            </li>
          ))}
        </ol>
      </div>
    </div>
  );
}
