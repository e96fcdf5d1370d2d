"use client";
/**
 * A BFCL task's outcome in the trajectory view: passed, failed or not scored, and the check that failed —
 * which turn, the state difference (attribute, model value, ground-truth value) or the ground-truth responses
 * the model never produced; the checker's messages for single-turn entries; the checked reply and the
 * prerequisite conversations for memory questions. Read from the stored summary (validated).
 */
import { bfclOutcomeOfSummary, describeBfclCheck } from "../../../lib/bfcl/outcome";

export function BfclOutcomeCard({ summary }: { summary: unknown }) {
  const outcome = bfclOutcomeOfSummary(summary);
  if (!outcome) return null;
  const status = !outcome.scored ? "not scored" : outcome.valid ? "passed" : "failed";
  const check = outcome.check;
  return (
    <div className={`card bfcl-outcome ${status.replace(" ", "-")}`} data-testid="bfcl-outcome">
      <div className="small muted">
        BFCL · {outcome.category} · task {outcome.taskId}
        {outcome.turns ? ` · ${outcome.turns.played} of ${outcome.turns.expected} turns played` : ""} · ended {outcome.termination}
      </div>
      <p>
        <strong data-testid="bfcl-status">{status}</strong>
        {status !== "passed" && (
          <>
            {": "}
            <span data-testid="bfcl-check">{describeBfclCheck(outcome)}</span>
          </>
        )}
      </p>
      {check && (
        <div className="small">
          <div className="muted">
            {check.errorType}: {check.message}
          </div>
          {check.differences && check.differences.length > 0 && (
            <div className="table-scroll">
              <table className="table" data-testid="bfcl-state-diff">
                <thead>
                  <tr>
                    <th scope="col">{check.className ?? "attribute"}</th>
                    <th scope="col">model</th>
                    <th scope="col">ground truth</th>
                  </tr>
                </thead>
                <tbody>
                  {check.differences.map((d) => (
                    <tr key={d.attribute}>
                      <th scope="row">{d.attribute}</th>
                      <td className="tv-pre">{d.model}</td>
                      <td className="tv-pre">{d.groundTruth}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {check.missing && check.missing.length > 0 && (
            <div data-testid="bfcl-missing">
              <div className="muted">Ground-truth responses missing from the model&apos;s:</div>
              <ul>
                {check.missing.map((m, i) => (
                  <li key={i} className="tv-pre">
                    {m}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {check.details && check.details.length > 1 && (
            <ul>
              {check.details.slice(1).map((d, i) => (
                <li key={i} className="tv-pre">
                  {d}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {outcome.answer !== undefined && (
        <div className="small">
          <span className="muted">Checked reply:</span> <span className="tv-pre">{outcome.answer}</span>
        </div>
      )}
      {outcome.prerequisites && (
        <details className="small">
          <summary>Prerequisite conversations ({outcome.prerequisites.entries.length}) and the memory they left</summary>
          <ul>
            {outcome.prerequisites.entries.map((e) => (
              <li key={e.id}>
                {e.id}: {e.termination}
              </li>
            ))}
          </ul>
          <pre className="tv-json">{outcome.prerequisites.memory}</pre>
        </details>
      )}
    </div>
  );
}
