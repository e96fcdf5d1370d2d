"use client";
/**
 * A training run's evaluations: its own split and each evaluation suite (schedule.evalSuites), at the
 * latest evaluated step or one the reader picks, with links to the trajectories of each.
 */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { formatNumber } from "../../_lib/format";

const pct = (v: number | null) => (v == null ? "—" : `${formatNumber(100 * v, 3)}%`);

export function RunEvaluations({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.runs.evaluations.queryOptions({ id: runId }));
  const [chosen, setChosen] = useState<number | null>(null);
  if (q.error) return <p role="alert" className="error">{q.error.message}</p>;
  const rows = q.data?.items ?? [];
  // Only worth a table when there is more than the one evaluation an evaluation run has.
  if (rows.length === 0 || !rows.some((r) => r.suite !== null)) return null;
  const steps = [...new Set(rows.map((r) => r.step))].sort((a, b) => a - b);
  const step = chosen ?? steps[steps.length - 1]!;
  const benchmarks = [...new Map(rows.map((r) => [r.suite ?? "", r])).values()];
  return (
    <section aria-labelledby="run-evaluations-heading" data-testid="run-evaluations">
      <h2 id="run-evaluations-heading">Evaluations</h2>
      <div className="card">
        <label className="small">
          Step{" "}
          <select value={step} onChange={(e) => setChosen(Number(e.target.value))} data-testid="evaluation-step">
            {steps.map((s) => (
              <option key={s} value={s}>
                {s}
                {s === steps[steps.length - 1] ? " (latest)" : ""}
              </option>
            ))}
          </select>
        </label>
        <div className="table-scroll">
          <table className="table" data-testid="evaluation-table">
            <thead>
              <tr>
                <th scope="col">Evaluation</th>
                <th scope="col">Benchmark</th>
                <th scope="col" className="num">Episodes</th>
                <th scope="col" className="num">Reward</th>
                <th scope="col" className="num">Success</th>
                <th scope="col" className="num">pass@k</th>
                <th scope="col">Trajectories</th>
              </tr>
            </thead>
            <tbody>
              {benchmarks.map((b) => {
                const r = rows.find((x) => x.suite === b.suite && x.step === step);
                const query = b.suite ? `suite=${encodeURIComponent(b.suite)}` : "phase=eval";
                return (
                  <tr key={b.suite ?? ""} data-suite={b.suite ?? ""}>
                    <th scope="row">{b.suite ?? "own split"}</th>
                    <td>
                      {b.dataset} <span className="muted small">({b.split ? `${b.split} split` : "its evaluation split"})</span>
                    </td>
                    <td className="num">{r ? r.episodes : "—"}</td>
                    <td className="num">{formatNumber(r?.reward)}</td>
                    <td className="num">{r ? pct(r.success) : "—"}</td>
                    <td className="num">
                      {r ? pct(r.passAtK) : "—"}
                      {r?.k ? <span className="muted small"> k={r.k}</span> : null}
                    </td>
                    <td>
                      {r ? <Link href={`/runs/${runId}/trajectories?${query}&stepMin=${step}&stepMax=${step}`}>view</Link> : <span className="muted small">not evaluated at this step</span>}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <p className="muted small">Success: share of episodes the benchmark&apos;s own checker counts as solved (avg@k). pass@k: share of tasks solved in at least one of k trials. Charts: val/&lt;suite&gt;/….</p>
      </div>
    </section>
  );
}
