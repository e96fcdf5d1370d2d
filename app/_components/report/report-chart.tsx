"use client";
/** One report chart (one line per run, coloured by the run's position in the report), optionally captioned. */
import type { ReportChart, ReportDocument } from "../../../lib/reports/document";
import { LineChart, palette } from "../charts/line-chart";

export function ReportChartView({ doc, chart, caption }: { doc: ReportDocument; chart: ReportChart; caption?: string }) {
  const order = doc.runs.map((r) => r.id);
  const view = (
    <LineChart
      title={chart.key}
      xLabel="step"
      series={chart.series.map((s) => ({
        id: s.runId,
        label: s.runName,
        color: palette[Math.max(0, order.indexOf(s.runId)) % palette.length]!,
        points: s.points.map((p) => ({ x: p.step, y: p.value, step: p.step })),
      }))}
    />
  );
  if (!caption) return view;
  return (
    <figure className="report-figure" data-testid="embedded-chart" data-metric={chart.key}>
      {view}
      <figcaption className="embed-caption">{caption}</figcaption>
    </figure>
  );
}
