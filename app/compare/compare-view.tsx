"use client";
/** /compare?runs=a,b,…: metric overlays, config differences and per-instance outcomes. */
import Link from "next/link";
import { useQueries, useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/root";
import { useTRPC } from "../_lib/trpc";
import { formatNumber } from "../_lib/format";
import { StatusBadge } from "../_components/status";
import { formatConfigValue } from "../../lib/compare/config-diff";
import { ChartToolbar, MetricPanels, type ChartSettings } from "../_components/charts/metric-panels";
import { palette } from "../_components/charts/line-chart";
import { RunPicker } from "../_components/run-picker";
import { errorKindLabel } from "../../lib/outcomes";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function trajectoriesHref(runId: string, instanceId: string) {
  return `/runs/${runId}/trajectories?instance=${encodeURIComponent(instanceId)}`;
}

export function CompareView() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const runIds = [...new Set((params.get("runs") ?? "").split(",").filter((id) => UUID.test(id)))].slice(0, 8);
  const compare = useQuery({ ...trpc.compare.runs.queryOptions({ runIds }), enabled: runIds.length > 0, placeholderData: (p) => p });
  const names = new Map(compare.data?.runs.map((r) => [r.id, r.name]));
  const selected = runIds.map((id) => ({ id, name: names.get(id) ?? id.slice(0, 8) }));

  function setRuns(next: { id: string }[]) {
    const q = new URLSearchParams(params.toString());
    if (next.length) q.set("runs", next.map((r) => r.id).join(","));
    else q.delete("runs");
    router.replace(`${pathname}?${q.toString()}`);
  }

  return (
    <div>
      <div className="page-head">
        <h1>Compare runs</h1>
        <div className="spacer" />
        {runIds.length > 0 && (
          <Link className="button" href={`/reports/new?runs=${runIds.join(",")}`}>
            New report from these runs
          </Link>
        )}
      </div>
      <div className="card">
        <RunPicker selected={selected} onChange={setRuns} />
      </div>
      {compare.error && <p role="alert" className="error">{compare.error.message}</p>}
      {runIds.length === 0 && <p className="muted">Pick two or more runs to compare them.</p>}
      {compare.data && (
        <>
          <RunsSummary data={compare.data} />
          <section aria-labelledby="cmp-metrics">
            <h2 id="cmp-metrics">Metrics</h2>
            <Overlays runs={compare.data.runs.map((r) => ({ id: r.id, name: r.name }))} />
          </section>
          <section aria-labelledby="cmp-config">
            <h2 id="cmp-config">Config differences</h2>
            <ConfigDiff runs={compare.data.runs} rows={compare.data.configDiff} />
          </section>
          <section aria-labelledby="cmp-outcomes">
            <h2 id="cmp-outcomes">Per-instance outcomes</h2>
            <Outcomes data={compare.data} />
          </section>
        </>
      )}
    </div>
  );
}

type CompareData = inferRouterOutputs<AppRouter>["compare"]["runs"];

function RunsSummary({ data }: { data: CompareData }) {
  return (
    <table className="table" data-testid="compare-runs">
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Status</th>
          <th scope="col">Paradigm</th>
          <th scope="col">Reward (latest / best)</th>
          <th scope="col">Outcomes from</th>
          <th scope="col">Solved</th>
          <th scope="col" title="Solved share minus the first run's, in points, with its 95 % Newcombe interval (runs taken as independent samples: conservative when they share tasks)">
            Δ solved vs {data.runs[0]?.name ?? "first run"}
          </th>
          <th scope="col">Solved where another run fails</th>
          <th scope="col">Errored episodes</th>
        </tr>
      </thead>
      <tbody>
        {data.runs.map((r, i) => {
          const latest = r.latestMetrics as Record<string, number>;
          const best = r.bestMetrics as Record<string, number>;
          const c = data.solvedCounts[i]!;
          return (
            <tr key={r.id}>
              <td>
                <span className="chart-swatch" style={{ background: palette[i % palette.length] }} />{" "}
                <Link href={`/runs/${r.id}`}>{r.name}</Link>
              </td>
              <td>
                <StatusBadge status={r.status} />
              </td>
              <td>{r.paradigm}</td>
              <td>
                {formatNumber(latest["reward/mean"])} / {formatNumber(best["reward/mean"])}
              </td>
              <td>{r.evaluated ? `${r.evaluated.phase} step ${r.evaluated.step}` : <span className="muted">no trajectories</span>}</td>
              <td data-testid="compare-solved" title={c.interval ? `95 % Wilson interval ${pct(c.interval.low)}–${pct(c.interval.high)} %` : undefined}>
                {c.solved} / {c.evaluated}
                {c.rate != null ? <span className="small muted"> ({pct(c.rate)} %, n = {c.evaluated})</span> : null}
              </td>
              <td data-testid="compare-delta">{i === 0 ? <span className="muted">—</span> : deltaText(c.delta, c.evaluated, data.solvedCounts[0]?.evaluated ?? 0)}</td>
              <td>{c.uniquelySolved}</td>
              <td data-testid="compare-errored" title={erroredTitle(data.errored[i])}>
                {c.errored > 0 ? `${c.errored} left out` : <span className="muted">none</span>}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

const pct = (x: number) => (100 * x).toFixed(1);
const signedPts = (x: number) => `${x > 0 ? "+" : x < 0 ? "−" : "±"}${Math.abs(100 * x).toFixed(1)}`;
const pts = (x: number) => `${x < 0 ? "−" : ""}${Math.abs(100 * x).toFixed(1)}`;

/** "+25.0 pts [−31.9, 65.5] (n = 4 / 4)": a Δ with its 95 % interval and both samples' sizes. */
export function deltaText(d: { estimate: number; low: number; high: number } | null, n: number, nFirst: number): string {
  if (!d) return "—";
  return `${signedPts(d.estimate)} pts [${pts(d.low)}, ${pts(d.high)}] (n = ${n} / ${nFirst})`;
}

function erroredTitle(e: CompareData["errored"][number] | undefined): string | undefined {
  if (!e || e.total === 0) return undefined;
  return e.byKind.map((k) => `${errorKindLabel(k.kind)}: ${k.count}${k.example ? ` — e.g. ${k.example}` : ""}`).join("\n");
}

function Overlays({ runs }: { runs: { id: string; name: string }[] }) {
  const trpc = useTRPC();
  const keyLists = useQueries({ queries: runs.map((r) => trpc.metrics.keys.queryOptions({ runId: r.id })) });
  const [settings, setSettings] = useState<ChartSettings>({ smoothing: 0, axis: "step", zoom: null });
  const [filter, setFilter] = useState("");
  if (keyLists.some((k) => !k.data && !k.error)) return <p className="muted">Loading…</p>;
  // A run whose metric keys could not be read is named, not silently left out of the overlays.
  const failed = runs.flatMap((r, i) => (keyLists[i]!.error ? [{ run: r, message: keyLists[i]!.error!.message, retry: keyLists[i]!.refetch }] : []));
  const keys = [...new Set(keyLists.flatMap((k) => k.data ?? []))];
  return (
    <div data-testid="compare-charts">
      {failed.length > 0 && (
        <div role="alert" className="error series-failed" data-testid="series-failed">
          {failed.map((f) => (
            <p key={f.run.id}>
              {f.run.name}: its metrics failed to load — {f.message}{" "}
              <button type="button" onClick={() => void f.retry()}>
                Retry
              </button>
            </p>
          ))}
        </div>
      )}
      <ChartToolbar settings={settings} onChange={setSettings} filter={filter} onFilter={setFilter} />
      <MetricPanels runs={runs} keys={keys} settings={settings} onZoom={(zoom) => setSettings((s) => ({ ...s, zoom }))} filter={filter} />
    </div>
  );
}

function ConfigDiff({ runs, rows }: { runs: { id: string; name: string }[]; rows: CompareData["configDiff"] }) {
  if (runs.length < 2) return <p className="muted">Pick a second run to see config differences.</p>;
  if (rows.length === 0) return <p className="muted">The configs are identical.</p>;
  return (
    <table className="table config-diff" data-testid="config-diff">
      <thead>
        <tr>
          <th scope="col">Key</th>
          {runs.map((r) => (
            <th scope="col" key={r.id}>
              {r.name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.path}>
            <th scope="row" className="mono">
              {row.path}
            </th>
            {row.values.map((v, i) => (
              <td key={runs[i]!.id} className={`mono${v === undefined ? " muted" : ""}`}>
                {formatConfigValue(v as Parameters<typeof formatConfigValue>[0])}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Outcomes({ data }: { data: CompareData }) {
  const [onlyDiffs, setOnlyDiffs] = useState(true);
  const [search, setSearch] = useState("");
  const [limit, setLimit] = useState(200);
  const rows = data.outcomes.filter((r) => (!onlyDiffs || r.differs) && (!search || r.instanceId.toLowerCase().includes(search.toLowerCase())));
  if (data.outcomes.length === 0) return <p className="muted">None of these runs has trajectories yet.</p>;
  return (
    <div>
      <div className="filters">
        <label className="inline-check">
          <input type="checkbox" checked={onlyDiffs} onChange={(e) => setOnlyDiffs(e.target.checked)} /> Only instances where the runs disagree
        </label>
        <label>
          Instance
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="instance id" />
        </label>
        <span className="muted small">
          {rows.length} of {data.outcomes.length} instances{data.outcomesTruncated ? " (first 5,000)" : ""}
        </span>
      </div>
      <table className="table outcomes" data-testid="outcome-table">
        <thead>
          <tr>
            <th scope="col">Instance</th>
            <th scope="col">Benchmark</th>
            {data.runs.map((r) => (
              <th scope="col" key={r.id}>
                {r.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, limit).map((row) => (
            <tr key={row.instanceId} className={row.differs ? "differs" : undefined}>
              <th scope="row" className="mono">
                {row.instanceId}
              </th>
              <td>{row.dataSource}</td>
              {row.cells.map((c, i) => {
                const run = data.runs[i]!;
                if (!c) {
                  return (
                    <td key={run.id} className="muted">
                      not evaluated
                    </td>
                  );
                }
                if (c.n === 0) {
                  return (
                    <td key={run.id} className="outcome-errored">
                      <Link href={trajectoriesHref(run.id, row.instanceId)} aria-label={`${run.name} on ${row.instanceId}: every episode errored (${c.errored})`}>
                        ⚠ errored <span className="small">{c.errored}</span>
                      </Link>
                    </td>
                  );
                }
                return (
                  <td key={run.id} className={c.solved ? "outcome-solved" : "outcome-unsolved"}>
                    <Link href={trajectoriesHref(run.id, row.instanceId)} aria-label={`${run.name} on ${row.instanceId}: ${c.solved ? "solved" : "unsolved"}, ${c.successes} of ${c.n}${c.errored ? `, ${c.errored} errored` : ""}`}>
                      {c.solved ? "✓ solved" : "✗ unsolved"} <span className="small">{c.successes}/{c.n}</span>
                      {c.errored ? <span className="small muted"> +{c.errored} errored</span> : null}
                    </Link>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > limit && (
        <button type="button" onClick={() => setLimit(limit + 500)}>
          Show more ({rows.length - limit} left)
        </button>
      )}
    </div>
  );
}
