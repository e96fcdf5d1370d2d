"use client";
/** Charts for one run; they refresh when a step commits (app/_lib/live.ts). */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { ChartToolbar, MetricPanels, type ChartSettings } from "../../_components/charts/metric-panels";

export function RunCharts({ runId, runName, suites = [] }: { runId: string; runName: string; suites?: readonly { name: string; dataset?: string }[] }) {
  const trpc = useTRPC();
  const keys = useQuery(trpc.metrics.keys.queryOptions({ runId }));
  const [settings, setSettings] = useState<ChartSettings>({ smoothing: 0, axis: "step", zoom: null });
  const [filter, setFilter] = useState("");
  if (keys.error) return <p role="alert" className="error">{keys.error.message}</p>;
  return (
    <div data-testid="run-charts">
      <ChartToolbar settings={settings} onChange={setSettings} filter={filter} onFilter={setFilter} />
      {keys.data ? (
        <MetricPanels
          runs={[{ id: runId, name: runName }]}
          keys={keys.data}
          settings={settings}
          onZoom={(zoom) => setSettings((s) => ({ ...s, zoom }))}
          filter={filter}
          suites={suites}
        />
      ) : (
        <p className="muted">Loading…</p>
      )}
    </div>
  );
}
