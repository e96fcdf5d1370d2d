"use client";
/**
 * Charts for one run; they refresh when a step commits (app/_lib/live.ts). A run writes 60+ metrics, so
 * the page opens with an overview chosen for the run's kind (training, evaluation, test-time evaluation;
 * act and rehearse overlaid where a metric exists per role) and keeps every other family panel behind
 * "More panels", whose choice is remembered per run kind in this browser. The filter searches them all.
 */
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { ChartToolbar, PanelSection, type ChartSettings } from "../../_components/charts/metric-panels";
import { DEFAULT_CLOSED_PANELS, groupPanels, overviewPanel, type Panel, type RunChartKind } from "../../_components/charts/chart-math";

const storageKey = (kind: RunChartKind) => `envace.run-charts.${kind}`;

/** The panels the user chose for runs of this kind (null: the default), read after mount (no storage on the server). */
function useChosenPanels(kind: RunChartKind): [string[] | null, (ids: string[] | null) => void] {
  const [chosen, setChosen] = useState<string[] | null>(null);
  useEffect(() => {
    try {
      const raw = window.localStorage.getItem(storageKey(kind));
      const parsed: unknown = raw ? JSON.parse(raw) : null;
      setChosen(Array.isArray(parsed) && parsed.every((x) => typeof x === "string") ? parsed : null);
    } catch {
      setChosen(null);
    }
  }, [kind]);
  const update = (ids: string[] | null) => {
    setChosen(ids);
    try {
      if (ids === null) window.localStorage.removeItem(storageKey(kind));
      else window.localStorage.setItem(storageKey(kind), JSON.stringify(ids));
    } catch {
      /* storage full or disabled: the choice lasts for this page only */
    }
  };
  return [chosen, update];
}

type Suites = readonly { name: string; dataset?: string }[];

export function RunCharts({ runId, runName, kind, suites = [] }: { runId: string; runName: string; kind: RunChartKind; suites?: Suites }) {
  const trpc = useTRPC();
  const keys = useQuery(trpc.metrics.keys.queryOptions({ runId }));
  const [settings, setSettings] = useState<ChartSettings>({ smoothing: 0, axis: "step", zoom: null });
  const [filter, setFilter] = useState("");
  const [chosen, setChosen] = useChosenPanels(kind);
  if (keys.error) return <p role="alert" className="error">{keys.error.message}</p>;
  const runs = [{ id: runId, name: runName }];
  const onZoom = (zoom: ChartSettings["zoom"]) => setSettings((s) => ({ ...s, zoom }));
  return (
    <div data-testid="run-charts">
      <ChartToolbar settings={settings} onChange={setSettings} filter={filter} onFilter={setFilter} />
      {keys.data ? (
        <ChosenPanels keys={keys.data} kind={kind} suites={suites} filter={filter} chosen={chosen} onChoose={setChosen} render={(panel, open) => (
          <PanelSection key={panel.id} panel={panel} runs={runs} settings={settings} onZoom={onZoom} defaultOpen={open} />
        )} />
      ) : (
        <p className="muted">Loading…</p>
      )}
    </div>
  );
}

function ChosenPanels({
  keys,
  kind,
  suites,
  filter,
  chosen,
  onChoose,
  render,
}: {
  keys: string[];
  kind: RunChartKind;
  suites: Suites;
  filter: string;
  chosen: string[] | null;
  onChoose: (ids: string[] | null) => void;
  render: (panel: Panel, open: boolean) => React.ReactNode;
}) {
  if (keys.length === 0) return <p className="muted">No metrics recorded yet.</p>;
  const needle = filter.trim().toLowerCase();
  if (needle) {
    // A search reaches every panel, chosen or not.
    const found = groupPanels(keys.filter((k) => k.toLowerCase().includes(needle)), { overlayRoles: true, suites });
    if (found.length === 0) return <p className="muted">No metric matches “{filter}”.</p>;
    return <div className="metric-panels">{found.map((p) => render(p, true))}</div>;
  }
  const panels = groupPanels(keys, { overlayRoles: true, suites });
  const overview = overviewPanel(kind, keys);
  // Without an overview (none of its metrics yet) the family panels open as they did before it; the
  // run's evaluation suites are shown either way (one panel each).
  const defaults = overview ? panels.filter((p) => p.id.startsWith("suite:")).map((p) => p.id) : panels.filter((p) => !DEFAULT_CLOSED_PANELS.has(p.id)).map((p) => p.id);
  const ids = new Set(chosen ?? defaults);
  const shown = panels.filter((p) => ids.has(p.id));
  const toggle = (id: string, on: boolean) => onChoose(panels.map((p) => p.id).filter((p) => (p === id ? on : ids.has(p))));
  return (
    <div className="metric-panels">
      {overview && render(overview, true)}
      <details className="chart-picker card" data-testid="chart-picker">
        <summary>
          More panels{" "}
          <span className="muted small">
            ({shown.length} of {panels.length} shown)
          </span>
        </summary>
        <div className="chart-picker-options">
          {panels.map((p) => (
            <label key={p.id} className="inline-check">
              <input type="checkbox" checked={ids.has(p.id)} onChange={(e) => toggle(p.id, e.target.checked)} /> {p.title}{" "}
              <span className="muted small">({p.charts.length})</span>
            </label>
          ))}
        </div>
        <div className="chart-picker-actions">
          <button type="button" onClick={() => onChoose(panels.map((p) => p.id))}>
            Show all
          </button>{" "}
          <button type="button" onClick={() => onChoose(null)} disabled={chosen === null}>
            Back to the default
          </button>{" "}
          <span className="muted small">Remembered for {kind === "train" ? "training" : kind === "eval" ? "evaluation" : "test-time evaluation"} runs in this browser.</span>
        </div>
      </details>
      {shown.map((p) => render(p, true))}
    </div>
  );
}
