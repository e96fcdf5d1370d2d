"use client";
import { useState } from "react";
import type { VerdictRow } from "../_lib/types";

function analysisOf(v: VerdictRow): { meta: Record<string, unknown>; fields: [string, string][] } {
  const a = (v.analysis ?? {}) as Record<string, unknown>;
  const inner = a.analysis && typeof a.analysis === "object" ? (a.analysis as Record<string, unknown>) : {};
  return {
    meta: a,
    fields: Object.entries(inner).map(([k, val]) => [k.replaceAll("_", " "), typeof val === "string" ? val : JSON.stringify(val)]),
  };
}

/** Checklist verdicts, each with the judge's analysis one click away. */
export function Verdicts({ verdicts, title }: { verdicts: VerdictRow[]; title?: string }) {
  if (verdicts.length === 0) return null;
  const passed = verdicts.filter((v) => v.passed).length;
  return (
    <div className="tv-verdicts" data-testid="verdicts">
      <div className="small muted">
        {title ?? "Checklist verdicts on this step"} · {passed}/{verdicts.length} passed
      </div>
      <ul>
        {verdicts.map((v) => (
          <VerdictItem key={v.id} v={v} />
        ))}
      </ul>
    </div>
  );
}

function VerdictItem({ v }: { v: VerdictRow }) {
  const [open, setOpen] = useState(false);
  const { meta, fields } = analysisOf(v);
  const id = `verdict-${v.id}`;
  return (
    <li className={`tv-verdict ${v.passed ? "pass" : "fail"}`} data-testid="verdict">
      <span className="tv-verdict-mark" aria-label={v.passed ? "passed" : "failed"}>
        {v.passed ? "✓" : "✗"}
      </span>
      <span className="tv-verdict-q">{v.question}</span>
      <span className="badge">{v.itemId}</span>
      <span className="small muted">
        w {v.weight}
        {meta.required === true ? " · required" : ""}
        {typeof meta.source === "string" ? ` · ${meta.source}` : ""}
        {v.callFailed ? " · judge call failed" : ""}
      </span>
      <button type="button" className="tv-mini" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)}>
        {open ? "Hide analysis" : "Judge analysis"}
      </button>
      {open && (
        <div id={id} className="tv-analysis" data-testid="verdict-analysis">
          {fields.length === 0 && <div className="muted small">The judge gave no analysis{typeof meta.error === "string" ? `: ${meta.error}` : "."}</div>}
          {fields.map(([k, val]) => (
            <div key={k}>
              <div className="small muted">{k}</div>
              <div className="tv-pre">{val}</div>
            </div>
          ))}
        </div>
      )}
    </li>
  );
}
