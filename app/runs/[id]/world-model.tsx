"use client";
/**
 * The world-model view of a run: where the policy's imagined world (its rehearsed tool responses)
 * diverges from the real one — fidelity per tool and per step, and the most frequent divergences
 * (tool, field, rehearsed value, real value) with links to the turns that show them. The score is
 * defined in docs/FIDELITY.md.
 */
import Link from "next/link";
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../_lib/trpc";

type Phase = "all" | "train" | "eval";

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

function ScoreBar({ value, label }: { value: number; label: string }) {
  const tone = value >= 0.999 ? "good" : value >= 0.5 ? "mid" : "bad";
  return (
    <span className="wm-score" aria-label={`${label} ${value.toFixed(2)}`}>
      <span className={`wm-bar wm-${tone}`} style={{ width: `${Math.max(2, value * 100)}%` }} />
      <span className="wm-score-text">{value.toFixed(2)}</span>
    </span>
  );
}

interface StepPoint {
  step: number;
  /** Last step of a bucketed point (= step otherwise). */
  toStep: number;
  phase: string;
  meanScore: number;
  exactRate: number;
  comparisons: number;
}

/** Mean score and exact-match rate per step (or per bucket of steps on a long run), as two lines on a 0..1 axis (eval steps marked). */
function StepChart({ steps }: { steps: StepPoint[] }) {
  const w = 640;
  const h = 160;
  const pad = { l: 36, r: 10, t: 10, b: 24 };
  const first = steps[0]!.step;
  // A bucketed point sits at its first step and covers up to toStep: the axis ends at the last step covered.
  const last = Math.max(...steps.map((p) => p.toStep));
  const x = (s: number) => pad.l + (last === first ? (w - pad.l - pad.r) / 2 : ((s - first) / (last - first)) * (w - pad.l - pad.r));
  const y = (v: number) => pad.t + (1 - v) * (h - pad.t - pad.b);
  const line = (pick: (p: StepPoint) => number, phase: string) =>
    steps
      .filter((p) => p.phase === phase)
      .map((p, i) => `${i === 0 ? "M" : "L"}${x(p.step).toFixed(1)},${y(pick(p)).toFixed(1)}`)
      .join(" ");
  const phases = [...new Set(steps.map((s) => s.phase))];
  return (
    <figure className="wm-chart">
      <svg viewBox={`0 0 ${w} ${h}`} role="img" aria-label={`Fidelity per step, steps ${first} to ${last}`} data-testid="world-model-step-chart">
        {[0, 0.5, 1].map((v) => (
          <g key={v}>
            <line x1={pad.l} x2={w - pad.r} y1={y(v)} y2={y(v)} className="wm-grid" />
            <text x={pad.l - 6} y={y(v) + 4} textAnchor="end" className="wm-axis">
              {v}
            </text>
          </g>
        ))}
        <text x={pad.l} y={h - 6} className="wm-axis">
          step {first}
        </text>
        <text x={w - pad.r} y={h - 6} textAnchor="end" className="wm-axis">
          step {last}
        </text>
        {phases.map((ph) => (
          <g key={ph} className={ph === "eval" ? "wm-eval" : ""}>
            <path d={line((p) => p.meanScore, ph)} className="wm-line-score" />
            <path d={line((p) => p.exactRate, ph)} className="wm-line-exact" />
            {steps
              .filter((p) => p.phase === ph)
              .map((p) => (
                <circle key={`${ph}-${p.step}`} cx={x(p.step)} cy={y(p.meanScore)} r={2.5} className="wm-dot">
                  <title>{`${p.toStep > p.step ? `steps ${p.step}–${p.toStep}` : `step ${p.step}`} (${p.phase}): score ${p.meanScore.toFixed(3)}, exact ${pct(p.exactRate)}, ${p.comparisons} comparisons`}</title>
                </circle>
              ))}
          </g>
        ))}
      </svg>
      <figcaption className="small muted">
        <span className="wm-key wm-key-score" /> mean fidelity score · <span className="wm-key wm-key-exact" /> exact-match rate
        {phases.includes("eval") ? " · dashed: evaluation steps" : ""}
      </figcaption>
    </figure>
  );
}

export function WorldModelView({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const [phase, setPhase] = useState<Phase>("all");
  const [tool, setTool] = useState<string | null>(null);
  const input = { runId, phase, tool, limit: 25 };
  const wm = useQuery(trpc.runs.worldModel.queryOptions(input));

  if (wm.error) return <p role="alert" className="error">{wm.error.message}</p>;
  if (!wm.data) return <p className="muted">Loading…</p>;
  const d = wm.data;
  if (!d.overall) {
    return (
      <p className="muted" data-testid="world-model-empty">
        No rehearsed response has been compared with a real one in this run{phase !== "all" ? ` (${phase} steps)` : ""}. Turn on shadow execution
        (rehearse paradigm) or the fidelity probe (environment paradigm) to see where the policy&apos;s imagined world diverges from the real one.
      </p>
    );
  }
  const o = d.overall;
  return (
    <div className="wm" data-testid="world-model">
      <div className="wm-head">
        <p className="small muted">
          How closely the policy&apos;s rehearsed tool responses match the real ones ({o.comparisons} comparisons). Score 0–1 as defined in
          docs/FIDELITY.md; exact match counts identical responses only.
        </p>
        <label className="small">
          Steps{" "}
          <select value={phase} onChange={(e) => setPhase(e.target.value as Phase)} aria-label="Steps to include">
            <option value="all">all</option>
            <option value="train">training</option>
            <option value="eval">evaluation</option>
          </select>
        </label>
      </div>
      <div className="cards">
        <div className="card stat">
          <div className="muted">Mean fidelity</div>
          <div className="wm-big" data-testid="world-model-score">{o.meanScore.toFixed(3)}</div>
        </div>
        <div className="card stat">
          <div className="muted">Exact match</div>
          <div className="wm-big" data-testid="world-model-exact">{pct(o.exactRate)}</div>
        </div>
        <div className="card stat">
          <div className="muted">Error agreement</div>
          <div className="wm-big">{pct(o.errorAgreementRate)}</div>
          <div className="small muted">both errors {pct(o.bothErrorRate)} · invalid rehearsals {pct(o.invalidRate)}</div>
        </div>
      </div>

      <h3>Per tool</h3>
      <div className="table-scroll">
        <table className="table result-table" data-testid="world-model-tools">
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col" className="num">Comparisons</th>
              <th scope="col">Mean score</th>
              <th scope="col" className="num">Exact</th>
              <th scope="col" className="num">Error agreement</th>
              <th scope="col" className="num">Both errors</th>
              <th scope="col" className="num">Invalid rehearsals</th>
              <th scope="col"><span className="sr-only">Filter</span></th>
            </tr>
          </thead>
          <tbody>
            {d.tools.map((t) => (
              <tr key={t.tool} data-testid="world-model-tool" aria-selected={tool === t.tool}>
                <th scope="row" className="mono">{t.tool}</th>
                <td className="num">{t.comparisons}</td>
                <td>
                  <ScoreBar value={t.meanScore} label={`${t.tool} mean score`} />
                </td>
                <td className="num">{pct(t.exactRate)}</td>
                <td className="num">{pct(t.errorAgreementRate)}</td>
                <td className="num">{pct(t.bothErrorRate)}</td>
                <td className="num">{pct(t.invalidRate)}</td>
                <td>
                  <button type="button" className="link-button small" onClick={() => setTool(tool === t.tool ? null : t.tool)}>
                    {tool === t.tool ? "all tools" : "divergences"}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h3>Per step</h3>
      {d.steps.length > 0 && <StepChart steps={d.steps} />}

      <h3>
        Most frequent divergences{tool ? <> of <span className="mono">{tool}</span></> : null}
      </h3>
      {d.divergences.length === 0 ? (
        <p className="muted" data-testid="world-model-no-divergences">
          No divergences{tool ? ` for ${tool}` : ""}: every compared response matched.
        </p>
      ) : (
        <>
          <p className="small muted">
            Showing {d.divergences.length} of {d.divergenceKinds} kinds. Field <span className="mono">$</span> is the whole response, <span className="mono">[]</span> any list
            element (matched by content).
          </p>
          <div className="table-scroll">
            <table className="table result-table" data-testid="world-model-divergences">
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">Field</th>
                  <th scope="col">Rehearsed</th>
                  <th scope="col">Real</th>
                  <th scope="col" className="num">Count</th>
                  <th scope="col">Turns</th>
                </tr>
              </thead>
              <tbody>
                {d.divergences.map((x, i) => (
                  <tr key={`${x.tool}|${x.path}|${x.rehearsed}|${x.real}|${i}`} data-testid="world-model-divergence">
                    <td className="mono">{x.tool}</td>
                    <td className="mono">{x.path}</td>
                    <td className="mono wm-value">{x.rehearsed ?? <span className="muted">(absent)</span>}</td>
                    <td className="mono wm-value">{x.real ?? <span className="muted">(absent)</span>}</td>
                    <td className="num">{x.count}</td>
                    <td>
                      {x.examples.map((e) => (
                        <Link key={`${e.trajectoryId}-${e.turnIndex}`} className="wm-turn small" href={`/trajectories/${e.trajectoryId}#turn-${e.turnIndex}`}>
                          step {e.step} · turn {e.turnIndex}
                        </Link>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
