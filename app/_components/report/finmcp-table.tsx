"use client";
/**
 * The paper's Table 2 (FinMCP-Bench, lib/reports/finmcp.ts): TR, TP, TF1 (upstream's macro recall, precision, F1)
 * with the micro figures, per run, and each run's per-group blocks (scenario, difficulty, task type). A replay run is
 * labelled on its row and in its notes: its tools were answered by recorded gold outputs, not upstream's live server.
 */
import Link from "next/link";
import { FINMCP_TABLE_NOTE, type FinmcpFigures, type FinmcpRow, type FinmcpTable } from "../../../lib/reports/finmcp";

const two = (x: number) => x.toFixed(2);
const GROUPS = [
  { key: "scenario", label: "Scenario" },
  { key: "difficulty", label: "Difficulty" },
  { key: "task", label: "Task type" },
] as const;

function Figures({ f }: { f: FinmcpFigures | null }) {
  if (!f)
    return (
      <>
        {Array.from({ length: 8 }, (_, i) => (
          <td key={i} className="num">
            —
          </td>
        ))}
      </>
    );
  return (
    <>
      {[f.TR, f.TP, f.TF1, f.microTR, f.microTP, f.microTF1].map((v, i) => (
        <td key={i} className="num">
          {two(v)}
        </td>
      ))}
      <td className="num">{f.N}</td>
      <td className="num">{two(f.exact)}</td>
    </>
  );
}

/** One run's per-group blocks (the run page shows them under Table 2's row). */
export function FinmcpGroups({ row }: { row: FinmcpRow }) {
  return (
    <div data-testid="finmcp-groups">
      {GROUPS.filter((g) => row.groups[g.key].length > 0).map((g) => (
        <div className="table-scroll" key={g.key}>
          <table className="table result-table" data-testid={`finmcp-group-${g.key}`}>
            <thead>
              <tr>
                <th scope="col">{g.label}</th>
                {["TR", "TP", "TF1", "micro TR", "micro TP", "micro TF1", "N", "exact"].map((h) => (
                  <th scope="col" key={h} className="num">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {row.groups[g.key].map((x) => (
                <tr key={x.key}>
                  <th scope="row">{x.key}</th>
                  <Figures f={x.figures} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </div>
  );
}

export function FinmcpTableView({ table, linkRuns, groups = true }: { table: FinmcpTable; linkRuns: boolean; groups?: boolean }) {
  return (
    <div data-testid="finmcp-table">
      <div className="table-scroll">
        <table className="table result-table">
          <caption className="muted small">{FINMCP_TABLE_NOTE} Percent.</caption>
          <thead>
            <tr>
              <th scope="col" rowSpan={2}>
                Run
              </th>
              <th scope="colgroup" colSpan={3} className="center">
                macro
              </th>
              <th scope="colgroup" colSpan={3} className="center">
                micro
              </th>
              <th scope="col" rowSpan={2} className="num">
                N
              </th>
              <th scope="col" rowSpan={2} className="num">
                exact
              </th>
            </tr>
            <tr>
              {["TR", "TP", "TF1", "TR", "TP", "TF1"].map((h, i) => (
                <th scope="col" key={i} className="num">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((row) => (
              <tr key={row.runId} data-testid="finmcp-row">
                <th scope="row">
                  {linkRuns ? <Link href={`/runs/${row.runId}`}>{row.runName}</Link> : row.runName}
                  {row.replay && (
                    <span className="badge" data-testid="finmcp-replay" title={row.mode}>
                      {" "}
                      replay
                    </span>
                  )}
                  <div className="muted small">
                    {row.dataset} · {row.mode} · eval step {row.step}
                  </div>
                </th>
                <Figures f={row.overall} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {table.rows.map((row) => (
        <div key={row.runId} className="small">
          <strong>{row.runName}</strong>: policy {row.policy}; sampling {row.sampling}; tools {row.mode}.
          {row.notes.length > 0 && (
            <ul data-testid="finmcp-notes">
              {row.notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          )}
          {groups && <FinmcpGroups row={row} />}
        </div>
      ))}
    </div>
  );
}
