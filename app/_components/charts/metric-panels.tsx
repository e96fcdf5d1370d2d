"use client";
/**
 * Grouped metric panels for one run (lines = statistics of a metric, or act and rehearse on a role
 * chart) or several runs (lines = runs). Each open panel fetches its keys with downsampled
 * `metrics.series` queries per run (at most 40 keys each); a query that fails is shown as failed,
 * naming the run, with a retry — never a chart silently missing.
 */
import { useQueries } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { DEFAULT_CLOSED_PANELS, MAX_CHART_POINTS, ROLES, ema, formatSeconds, groupPanels, panelQueryKeys, type Panel } from "./chart-math";
import { LineChart, palette, type ChartSeries } from "./line-chart";

export interface ChartSettings {
  smoothing: number;
  axis: "step" | "time";
  zoom: { from: number; to: number } | null;
}

type ZoomHandler = (zoom: { from: number; to: number } | null) => void;

/** Every family panel of the keys (the compare page; the run page composes its own, see run-charts.tsx). */
export function MetricPanels({
  runs,
  keys,
  settings,
  onZoom,
  filter = "",
  suites = [],
}: {
  runs: { id: string; name: string }[];
  keys: string[];
  settings: ChartSettings;
  onZoom: ZoomHandler;
  filter?: string;
  /** The run's evaluation suites: one panel each. */
  suites?: readonly { name: string; dataset?: string }[];
}) {
  const needle = filter.trim().toLowerCase();
  const panels = groupPanels(needle ? keys.filter((k) => k.toLowerCase().includes(needle)) : keys, { suites });
  if (keys.length === 0) return <p className="muted">No metrics recorded yet.</p>;
  if (panels.length === 0) return <p className="muted">No metric matches “{filter}”.</p>;
  return (
    <div className="metric-panels">
      {panels.map((panel) => (
        <PanelSection key={panel.id} panel={panel} runs={runs} settings={settings} onZoom={onZoom} defaultOpen={!DEFAULT_CLOSED_PANELS.has(panel.id) || !!needle} />
      ))}
    </div>
  );
}

export function PanelSection({
  panel,
  runs,
  settings,
  onZoom,
  defaultOpen,
}: {
  panel: Panel;
  runs: { id: string; name: string }[];
  settings: ChartSettings;
  onZoom: ZoomHandler;
  defaultOpen: boolean;
}) {
  const [open, setOpen] = useState(defaultOpen);
  return (
    <details className="metric-panel card" open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)} data-panel={panel.id}>
      <summary>
        {panel.title} <span className="muted small">({panel.charts.length})</span>
      </summary>
      {open && <PanelCharts panel={panel} runs={runs} settings={settings} onZoom={onZoom} />}
    </details>
  );
}

type SeriesData = { series: { key: string; bucketSize: number; points: { x: number; step: number; mean: number; min: number; max: number }[] }[] };

function PanelCharts({ panel, runs, settings, onZoom }: { panel: Panel; runs: { id: string; name: string }[]; settings: ChartSettings; onZoom: ZoomHandler }) {
  const trpc = useTRPC();
  const multiRun = runs.length > 1;
  // With several runs each chart overlays the runs on its first (mean) key only.
  const chunks = panelQueryKeys(panel, multiRun);
  const results = useQueries({
    queries: runs.flatMap((run) =>
      chunks.map((keys) =>
        trpc.metrics.series.queryOptions(
          { runId: run.id, keys, maxPoints: MAX_CHART_POINTS, axis: settings.axis, stepRange: settings.zoom },
          { placeholderData: (prev) => prev },
        ),
      ),
    ),
  });
  const ofRun = (ri: number) => results.slice(ri * chunks.length, (ri + 1) * chunks.length);
  if (results.some((r) => !r.data && !r.error)) return <p className="muted">Loading…</p>;
  const failed = runs.flatMap((run, ri) => {
    const errors = ofRun(ri).filter((r) => r.error);
    return errors.length ? [{ run, message: errors[0]!.error!.message, retry: () => errors.forEach((r) => void r.refetch()) }] : [];
  });
  // A run's series: every chunk it loaded (a failed chunk's charts are named in the alert instead).
  const data: (SeriesData | null)[] = runs.map((_, ri) => {
    const loaded = ofRun(ri).filter((r) => r.data);
    return loaded.length ? { series: loaded.flatMap((r) => r.data!.series) } : null;
  });

  const formatX = settings.axis === "time" ? formatSeconds : undefined;
  return (
    <>
      {failed.length > 0 && (
        <div role="alert" className="error series-failed" data-testid="series-failed">
          {failed.map((f) => (
            <p key={f.run.id}>
              {multiRun ? `${f.run.name}: ` : ""}the {panel.title.toLowerCase()} series failed to load — {f.message}{" "}
              <button type="button" onClick={f.retry}>
                Retry
              </button>
            </p>
          ))}
        </div>
      )}
      <div className="chart-grid">
        {panel.charts.map((chart) => {
          const lines: ChartSeries[] = [];
          runs.forEach((run, ri) => {
            const d = data[ri];
            if (!d) return;
            const find = (key: string) => d.series.find((x) => x.key === key);
            const smooth = (points: { mean: number }[]) =>
              ema(
                points.map((p) => p.mean),
                settings.smoothing,
              );
            if (chart.roles && !multiRun) {
              // Act and rehearse overlaid: each role's mean, banded by its own min and max at the same step.
              for (const line of chart.roles) {
                const s = find(line.key);
                if (!s) continue;
                const at = (key: string | undefined) => new Map((key ? (find(key)?.points ?? []) : []).map((p) => [p.step, p.mean]));
                const lo = at(line.min);
                const hi = at(line.max);
                const smoothed = smooth(s.points);
                lines.push({
                  id: `${run.id}:${line.key}`,
                  label: line.role,
                  color: palette[ROLES.indexOf(line.role) % palette.length]!,
                  band: lo.size > 0 && hi.size > 0,
                  points: s.points.map((p, i) => ({ x: p.x, y: smoothed[i]!, step: p.step, min: lo.get(p.step), max: hi.get(p.step) })),
                });
              }
              return;
            }
            const chartKeys = multiRun ? chart.keys.slice(0, 1) : chart.keys;
            chartKeys.forEach((key, ki) => {
              const s = find(key);
              if (!s) return;
              const smoothed = smooth(s.points);
              lines.push({
                id: `${run.id}:${key}`,
                label: multiRun ? run.name : key.slice(chart.base.length + 1) || key,
                color: palette[(multiRun ? ri : ki) % palette.length]!,
                band: !multiRun && chartKeys.length === 1 && s.bucketSize > 1,
                points: s.points.map((p, i) => ({ x: p.x, y: smoothed[i]!, step: p.step, min: p.min, max: p.max })),
              });
            });
          });
          return (
            <LineChart
              key={chart.base}
              title={multiRun ? chart.keys[0]! : chart.base}
              series={lines}
              xLabel={settings.axis === "time" ? "wall time" : "step"}
              formatX={formatX}
              integerX={settings.axis === "step"}
              onZoom={(r) => onZoom(r)}
              onResetZoom={() => onZoom(null)}
            />
          );
        })}
      </div>
    </>
  );
}

/** Smoothing, axis and zoom controls shared by the run and compare pages. */
export function ChartToolbar({
  settings,
  onChange,
  filter,
  onFilter,
}: {
  settings: ChartSettings;
  onChange: (s: ChartSettings) => void;
  filter: string;
  onFilter: (f: string) => void;
}) {
  return (
    <div className="chart-toolbar">
      <label>
        Filter metrics
        <input type="search" value={filter} onChange={(e) => onFilter(e.target.value)} placeholder="e.g. kl, fidelity" />
      </label>
      <label>
        Smoothing {settings.smoothing.toFixed(2)}
        <input
          type="range"
          min={0}
          max={0.99}
          step={0.01}
          value={settings.smoothing}
          onChange={(e) => onChange({ ...settings, smoothing: Number(e.target.value) })}
        />
      </label>
      <label>
        X axis
        <select value={settings.axis} onChange={(e) => onChange({ ...settings, axis: e.target.value as "step" | "time", zoom: null })}>
          <option value="step">Step</option>
          <option value="time">Wall time</option>
        </select>
      </label>
      <div className="chart-zoom small">
        {settings.zoom ? (
          <>
            <span data-testid="chart-zoom">
              steps {settings.zoom.from}–{settings.zoom.to}
            </span>{" "}
            <button type="button" onClick={() => onChange({ ...settings, zoom: null })}>
              Reset zoom
            </button>
          </>
        ) : (
          <span className="muted">Drag across a chart to zoom; double-click resets.</span>
        )}
      </div>
    </div>
  );
}
