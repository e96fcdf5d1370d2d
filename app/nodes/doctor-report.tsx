"use client";
/** The node doctor's reports of one node: per model, each check with ok / failed / skipped, its reason, and who needs it. */
import type { DoctorReport } from "../../lib/node-doctor/report";
import { formatTime } from "../_lib/format";

type StoredReport = DoctorReport & { checkedBy: string };

const label: Record<DoctorReport["checks"][number]["check"], string> = {
  server: "Tinker API",
  profile: "Server profile",
  model: "Model served",
  "lora-rank": "LoRA rank limit",
  sampling: "Sampling round trip",
  tokenizer: "Tokenizer match",
  "loss-scale": "Loss scale (forward)",
  models: "/v1/models",
  chat: "Chat round trip",
  "tool-calling": "Tool calling",
  reasoning: "Reasoning fields",
  search: "Search round trip",
};

/** One line for the table: ok, or the first check that blocks some role. */
export function DoctorSummary({ reports }: { reports: StoredReport[] }) {
  if (reports.length === 0) return <span className="muted small">not checked</span>;
  const bad = reports.flatMap((r) => r.checks.filter((c) => c.neededBy.length > 0 && c.status !== "ok").map((c) => ({ r, c })));
  if (bad.length === 0)
    return (
      <span className="status status-healthy" data-testid="doctor-summary">
        passed
      </span>
    );
  return (
    <span className="status status-unhealthy" data-testid="doctor-summary" title={bad[0]!.c.reason}>
      {bad[0]!.c.check} {bad[0]!.c.status === "failed" ? "failed" : "not run"}
    </span>
  );
}

export function DoctorReports({ reports }: { reports: StoredReport[] }) {
  if (reports.length === 0) return <p className="muted small">The node doctor has not checked this node yet.</p>;
  return (
    <div className="doctor" data-testid="doctor-report">
      {reports.map((r) => (
        <div key={r.model ?? ""} className="doctor-model">
          <h3>
            {r.model ? <code>{r.model}</code> : "server only (no model named)"}{" "}
            <span className={`status status-${r.ok ? "healthy" : "unhealthy"}`}>{r.ok ? "passed" : "failed"}</span>{" "}
            <span className="muted small">
              checked {formatTime(new Date(r.checkedAt))} by the {r.checkedBy} in {(r.durationMs / 1000).toFixed(1)} s
            </span>
          </h3>
          <table className="table doctor-checks">
            <thead>
              <tr>
                <th>Check</th>
                <th>Result</th>
                <th>Reason</th>
                <th>Needed by</th>
              </tr>
            </thead>
            <tbody>
              {r.checks.map((c) => (
                <tr key={`${c.protocol}-${c.check}`} data-check={c.check} data-status={c.status}>
                  <td>
                    {label[c.check]} <span className="muted small">({c.protocol})</span>
                  </td>
                  <td>
                    <span className={`doctor-status doctor-${c.neededBy.length === 0 && c.status === "failed" ? "warn" : c.status}`}>
                      {c.neededBy.length === 0 && c.status === "failed" ? "warning" : c.status}
                    </span>
                  </td>
                  <td className="doctor-reason">{c.reason}</td>
                  <td className="small">{c.neededBy.length ? c.neededBy.join(", ") : <span className="muted">no role</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </div>
  );
}
