"use client";
/** Live charts for one run: refetch on the run's change signal, at most once per 2 s. */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { useChangeEvents, type ChangeEvent } from "../../_lib/live";
import { ChartToolbar, MetricPanels, type ChartSettings } from "../../_components/charts/metric-panels";

const REFRESH_DEBOUNCE_MS = 2000;

/** Refresh every metrics query of these runs when one of them changes (debounced). */
export function useLiveMetrics(runIds: string[]) {
  const qc = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const key = runIds.join(",");
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  useChangeEvents(
    useCallback(
      (e: ChangeEvent) => {
        if (e.t !== "run" || !key.split(",").includes(e.id) || timer.current) return;
        timer.current = setTimeout(() => {
          timer.current = null;
          qc.invalidateQueries({
            predicate: (q) => {
              const [path, opts] = q.queryKey as [string[], { input?: { runId?: string } } | undefined];
              return path?.[0] === "metrics" && opts?.input?.runId === e.id;
            },
          });
        }, REFRESH_DEBOUNCE_MS);
      },
      [qc, key],
    ),
  );
}

export function RunCharts({ runId, runName }: { runId: string; runName: string }) {
  const trpc = useTRPC();
  useLiveMetrics([runId]);
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
        />
      ) : (
        <p className="muted">Loading…</p>
      )}
    </div>
  );
}
