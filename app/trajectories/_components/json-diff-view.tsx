"use client";
import { useMemo, useState } from "react";
import { changedPaths, diffJsonText } from "../_lib/json-diff";
import type { FidelityValue } from "../_lib/types";

const kindLabel = { same: "", changed: "changed", added: "only in real", removed: "only in rehearsed" } as const;

/** Rehearsed vs real tool response side by side, rows aligned by JSON path, differences marked. */
export function ResponseDiff({ rehearsed, real, fidelity }: { rehearsed: string; real: string; fidelity: FidelityValue | null }) {
  const diff = useMemo(() => diffJsonText(rehearsed, real), [rehearsed, real]);
  const paths = useMemo(() => changedPaths(diff), [diff]);
  const [onlyChanges, setOnlyChanges] = useState(false);
  const identical = paths.length === 0;
  const rows = onlyChanges ? diff.rows.filter((r) => r.kind !== "same" || r.container) : diff.rows;
  return (
    <div className="tv-diff" data-testid="response-diff">
      <div className="tv-diff-head">
        <span className={`tv-fid ${fidelity ? (fidelity.score >= 0.999 ? "good" : fidelity.score >= 0.5 ? "mid" : "bad") : ""}`} data-testid="fidelity">
          fidelity {fidelity ? fidelity.score.toFixed(2) : "—"}
        </span>
        {fidelity && (
          <span className="small muted">
            exact {fidelity.exact ? "yes" : "no"} · error agreement {fidelity.errorAgreement ? "yes" : "no"}
            {fidelity.outcome && fidelity.outcome !== "values" ? ` · ${fidelity.outcome.replace(/_/g, " ")}` : ""}
          </span>
        )}
        <span className="small" data-testid="diff-summary">
          {identical ? "identical" : `${diff.summary.changed} changed · ${diff.summary.removed} only rehearsed · ${diff.summary.added} only real`}
        </span>
        <div className="spacer" />
        {!identical && (
          <label className="tv-inline">
            <input type="checkbox" checked={onlyChanges} onChange={(e) => setOnlyChanges(e.target.checked)} /> only differences
          </label>
        )}
      </div>
      <div className="tv-diff-grid" role="table" aria-label="Rehearsed versus real response">
        <div role="row" className="tv-diff-row tv-diff-cols">
          <div role="columnheader">Rehearsed (entered the conversation)</div>
          <div role="columnheader">Real (shadow execution)</div>
        </div>
        {rows.map((r, i) => (
          <div role="row" key={i} className={`tv-diff-row d-${r.kind}${r.container ? " container" : ""}`} title={r.kind === "same" ? undefined : `${r.path || "(root)"}: ${kindLabel[r.kind]}`}>
            <div role="cell" style={{ paddingLeft: 6 + r.depth * 14 }} className={r.left === null ? "empty" : undefined}>
              {r.left ?? ""}
            </div>
            <div role="cell" style={{ paddingLeft: 6 + r.depth * 14 }} className={r.right === null ? "empty" : undefined}>
              {r.right ?? ""}
            </div>
          </div>
        ))}
      </div>
      {!identical && (
        <div className="small muted tv-paths">
          differs at: {paths.slice(0, 12).join(", ")}
          {paths.length > 12 ? ` … (+${paths.length - 12})` : ""}
        </div>
      )}
    </div>
  );
}
