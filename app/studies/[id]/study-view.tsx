"use client";
/**
 * A study: its groups (a grid cell over its seeds) and their runs, the runs' charts overlaid as mean ±
 * std per group, and the per-benchmark table of means ± std across seeds at the latest or a chosen step.
 */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { formatNumber, formatTime } from "../../_lib/format";
import { ProgressBar, progressUnit, StatusBadge } from "../../_components/status";
import { LineChart, palette, type ChartSeries } from "../../_components/charts/line-chart";
import { MAX_CHART_POINTS } from "../../_components/charts/chart-math";
import { valueText } from "../../../lib/studies";

/** Charts shown before the reader picks: rewards and success of the runs' own and suite evaluations, and the training reward. */
const DEFAULT_KEY = /^(reward\/mean|val\/reward\/mean|val\/avg@\d+|val\/[a-z0-9_-]+\/(reward\/mean|avg@\d+))$/;
const MAX_CHARTS = 12;

type Stat = { mean: number; std: number; n: number; min: number; max: number } | null;

function pm(s: Stat, percent = false) {
  if (!s) return "—";
  const f = (v: number) => (percent ? `${formatNumber(100 * v)}%` : formatNumber(v));
  return `${f(s.mean)} ± ${f(s.std)}`;
}

export function StudyView({ id }: { id: string }) {
  const trpc = useTRPC();
  const study = useQuery(trpc.studies.get.queryOptions({ id }));
  if (study.error) return <p role="alert" className="error">{study.error.message}</p>;
  if (!study.data) return <p className="muted">Loading…</p>;
  const s = study.data;
  const byId = new Map(s.runs.map((r) => [r.id, r]));
  const finished = s.runs.filter((r) => ["succeeded", "failed", "cancelled"].includes(r.status)).length;
  return (
    <div data-testid="study-view">
      <div className="page-head">
        <h1>{s.name}</h1>
        <span className="muted small" data-testid="study-progress">
          {finished} of {s.runs.length} runs finished
        </span>
      </div>
      <p className="small">
        {s.grid.length ? s.grid.map((a) => `${a.setting} ∈ {${a.values.map(valueText).join(", ")}}`).join(" × ") : "seeds only"} × seeds {s.seeds.join(", ")} · by {s.createdBy.name || s.createdBy.email} ·{" "}
        {formatTime(s.createdAt)}
      </p>
      <section aria-labelledby="study-groups-heading">
        <h2 id="study-groups-heading">Groups</h2>
        <div className="table-scroll card">
          <table className="table" data-testid="study-groups">
            <thead>
              <tr>
                <th scope="col">Group</th>
                <th scope="col">Seed</th>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Progress</th>
              </tr>
            </thead>
            <tbody>
              {s.groups.flatMap((g, gi) =>
                g.runs.map((member, i) => {
                  const r = byId.get(member.id);
                  return (
                    <tr key={member.id}>
                      {i === 0 && (
                        <th scope="rowgroup" rowSpan={g.runs.length} data-testid="study-group">
                          <span className="chart-swatch" style={{ background: palette[gi % palette.length] }} /> {g.label}
                        </th>
                      )}
                      <td>{member.seed}</td>
                      <td>
                        <Link href={`/runs/${member.id}`}>{r?.name ?? member.id}</Link>
                      </td>
                      <td>{r && <StatusBadge status={r.status} detail={r.statusDetail} />}</td>
                      <td>{r && <ProgressBar step={r.progressStep} total={r.totalSteps} unit={progressUnit(r.kind)} />}</td>
                    </tr>
                  );
                }),
              )}
            </tbody>
          </table>
        </div>
      </section>
      <StudyTable id={id} />
      <StudyCharts id={id} />
    </div>
  );
}

function StudyTable({ id }: { id: string }) {
  const trpc = useTRPC();
  const [step, setStep] = useState<number | "latest">("latest");
  const table = useQuery(trpc.studies.table.queryOptions({ id, step }, { placeholderData: (prev) => prev }));
  if (table.error) return <p role="alert" className="error">{table.error.message}</p>;
  const t = table.data;
  return (
    <section aria-labelledby="study-table-heading">
      <h2 id="study-table-heading">Evaluations</h2>
      <div className="card">
        <label className="small">
          Step{" "}
          <select value={String(step)} onChange={(e) => setStep(e.target.value === "latest" ? "latest" : Number(e.target.value))} data-testid="study-table-step">
            <option value="latest">each run&apos;s latest</option>
            {t?.steps.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        {!t ? (
          <p className="muted">Loading…</p>
        ) : t.rows.length === 0 ? (
          <p className="muted">No evaluations yet: they appear as the runs commit them.</p>
        ) : (
          <div className="table-scroll">
            <table className="table" data-testid="study-table">
              <caption className="muted small">
                Mean ± sample standard deviation across each group&apos;s seeds; n = runs with that evaluation. Success: the share of episodes the benchmark&apos;s own checker counts as solved
                (avg@k).
              </caption>
              <thead>
                <tr>
                  <th scope="col">Benchmark</th>
                  {t.groups.map((g) => (
                    <th scope="col" key={g.key} className="num">
                      {g.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {t.rows.map((row) => (
                  <tr key={row.key} data-benchmark={row.key}>
                    <th scope="row">
                      {row.label} {row.split && <span className="muted small">({row.split} split)</span>}
                    </th>
                    {row.cells.map((c, i) => (
                      <td key={t.groups[i]!.key} className="num" data-testid="study-cell">
                        <div>
                          success <strong>{pm(c.success, true)}</strong>
                        </div>
                        <div className="small">
                          reward {pm(c.reward)} · n={c.n}/{c.runs}
                        </div>
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </section>
  );
}

function StudyCharts({ id }: { id: string }) {
  const trpc = useTRPC();
  const keys = useQuery(trpc.studies.keys.queryOptions({ id }));
  const [picked, setPicked] = useState<string[] | null>(null);
  const [filter, setFilter] = useState("");
  const all = useMemo(() => keys.data ?? [], [keys.data]);
  const chosen = (picked ?? all.filter((k) => DEFAULT_KEY.test(k))).slice(0, MAX_CHARTS);
  const series = useQuery({ ...trpc.studies.series.queryOptions({ id, keys: chosen, maxPoints: MAX_CHART_POINTS }, { placeholderData: (prev) => prev }), enabled: chosen.length > 0 });
  const shown = filter ? all.filter((k) => k.toLowerCase().includes(filter.toLowerCase())) : all;
  return (
    <section aria-labelledby="study-charts-heading">
      <h2 id="study-charts-heading">Charts</h2>
      <details className="card">
        <summary>
          Metrics ({chosen.length} of {all.length} shown)
        </summary>
        <input type="search" placeholder="filter metrics" value={filter} onChange={(e) => setFilter(e.target.value)} />
        <div className="key-picker">
          {shown.map((k) => (
            <label key={k} className="small">
              <input
                type="checkbox"
                checked={chosen.includes(k)}
                onChange={(e) => setPicked(e.target.checked ? [...chosen, k] : chosen.filter((x) => x !== k))}
              />{" "}
              {k}
            </label>
          ))}
        </div>
      </details>
      {keys.error && <p role="alert" className="error">{keys.error.message}</p>}
      {series.error && <p role="alert" className="error">{series.error.message}</p>}
      {all.length === 0 && keys.data && <p className="muted">No metrics recorded yet.</p>}
      <div className="chart-grid" data-testid="study-charts">
        {series.data &&
          chosen.map((key) => {
            const lines: ChartSeries[] = series.data.groups.map((g, gi) => ({
              id: `${g.key}:${key}`,
              label: `${g.label} (n=${g.runs})`,
              color: palette[gi % palette.length]!,
              band: true,
              // The band is mean ± one standard deviation across the group's runs.
              points: (g.series.find((s) => s.key === key)?.points ?? []).map((p) => ({ x: p.step, y: p.mean, step: p.step, min: p.mean - p.std, max: p.mean + p.std })),
            }));
            return <LineChart key={key} title={`${key} — mean ± std across seeds`} series={lines} xLabel="step" />;
          })}
      </div>
    </section>
  );
}
