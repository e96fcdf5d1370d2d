"use client";
/**
 * Grouped metric panels for one run (lines = statistics of a metric) or several runs (lines = runs).
 * Each open panel fetches its keys with one downsampled `metrics.series` query per run.
 */
import { useQueries } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { DEFAULT_CLOSED_PANELS, MAX_CHART_POINTS, ema, formatSeconds, groupPanels, panelQueryKeys, type Panel } from "./chart-math";
import { LineChart, palette, type ChartSeries } from "./line-chart";

export interface ChartSettings {
  smoothing: number;
  axis: "step" | "time";
  zoom: { from: number; to: number } | null;
}


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
  onZoom: (zoom: { from: number; to: number } | null) => void;
  filter?: string;
  /** The run's evaluation suites: one panel each. */
  suites?: readonly { name: string; dataset?: string }[];
}) {
  const needle = filter.trim().toLowerCase();
  const panels = groupPanels(needle ? keys.filter((k) => k.toLowerCase().includes(needle)) : keys, suites);
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

function PanelSection({
  panel,
  runs,
  settings,
  onZoom,
  defaultOpen,
}: {
  panel: Panel;
  runs: { id: string; name: string }[];
  settings: ChartSettings;
  onZoom: (zoom: { from: number; to: number } | null) => void;
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

function PanelCharts({
  panel,
  runs,
  settings,
  onZoom,
}: {
  panel: Panel;
  runs: { id: string; name: string }[];
  settings: ChartSettings;
  onZoom: (zoom: { from: number; to: number } | null) => void;
}) {
  const trpc = useTRPC();
  const multiRun = runs.length > 1;
  // With several runs each chart overlays the runs on its first (mean) key only.
  const keys = panelQueryKeys(panel, multiRun);
  const results = useQueries({
    queries: runs.map((run) =>
      trpc.metrics.series.queryOptions(
        { runId: run.id, keys, maxPoints: MAX_CHART_POINTS, axis: settings.axis, stepRange: settings.zoom },
        { placeholderData: (prev) => prev },
      ),
    ),
  });
  const error = results.find((r) => r.error)?.error;
  if (error) return <p role="alert" className="error">{error.message}</p>;
  if (results.some((r) => !r.data)) return <p className="muted">Loading…</p>;

  const formatX = settings.axis === "time" ? formatSeconds : undefined;
  return (
    <div className="chart-grid">
      {panel.charts.map((chart) => {
        const lines: ChartSeries[] = [];
        runs.forEach((run, ri) => {
          const data = results[ri]!.data!;
          const chartKeys = multiRun ? chart.keys.slice(0, 1) : chart.keys;
          chartKeys.forEach((key, ki) => {
            const s = data.series.find((x) => x.key === key);
            if (!s) return;
            const smoothed = ema(
              s.points.map((p) => p.mean),
              settings.smoothing,
            );
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
