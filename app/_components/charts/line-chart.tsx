"use client";
/**
 * A small SVG line chart: several series, an optional min/max band per series (downsampled buckets),
 * hover read-out of every series at the nearest x, drag to zoom (reported as a step range), double-click
 * to reset, and arrow keys to move the read-out when focused.
 */
import { useId, useMemo, useRef, useState } from "react";
import { chartPalette } from "../../../lib/reports/chart-svg";
import { formatTick, nearestIndex, niceTicks } from "./chart-math";

export interface ChartPoint {
  x: number;
  y: number;
  step: number;
  min?: number;
  max?: number;
}

export interface ChartSeries {
  id: string;
  label: string;
  color: string;
  points: ChartPoint[];
  /** Draw the min/max band (only meaningful when points are buckets). */
  band?: boolean;
}

/** Series colours (shared with the report's SVG export, so a run keeps its colour in both). */
export const palette = chartPalette;

const W = 480;
const H = 220;
const M = { top: 10, right: 12, bottom: 26, left: 52 };

export function LineChart({
  title,
  series,
  formatX = formatTick,
  integerX = true,
  xLabel,
  onZoom,
  onResetZoom,
}: {
  title: string;
  series: ChartSeries[];
  formatX?: (x: number) => string;
  /** Whole-number x ticks (the step axis). */
  integerX?: boolean;
  xLabel: string;
  /** Called with the step range of a dragged selection. */
  onZoom?: (range: { from: number; to: number }) => void;
  onResetZoom?: () => void;
}) {
  const clipId = useId();
  const svgRef = useRef<SVGSVGElement>(null);
  const [hoverX, setHoverX] = useState<number | null>(null);
  const [drag, setDrag] = useState<{ x0: number; x1: number } | null>(null);

  const all = series.flatMap((s) => s.points);
  const bounds = useMemo(() => {
    if (all.length === 0) return null;
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const s of series)
      for (const p of s.points) {
        if (!Number.isFinite(p.y)) continue;
        x0 = Math.min(x0, p.x);
        x1 = Math.max(x1, p.x);
        y0 = Math.min(y0, s.band && p.min != null ? p.min : p.y);
        y1 = Math.max(y1, s.band && p.max != null ? p.max : p.y);
      }
    if (!Number.isFinite(x0)) return null;
    if (x0 === x1) (x0 -= 1), (x1 += 1);
    if (y0 === y1) (y0 -= Math.abs(y0) * 0.1 || 1), (y1 += Math.abs(y1) * 0.1 || 1);
    const pad = (y1 - y0) * 0.05;
    return { x0, x1, y0: y0 - pad, y1: y1 + pad };
  }, [series, all.length]);

  if (!bounds) {
    return (
      <figure className="chart">
        <figcaption className="chart-title">{title}</figcaption>
        <div className="chart-empty muted">no points yet</div>
      </figure>
    );
  }
  const iw = W - M.left - M.right;
  const ih = H - M.top - M.bottom;
  const sx = (x: number) => M.left + ((x - bounds.x0) / (bounds.x1 - bounds.x0)) * iw;
  const sy = (y: number) => M.top + (1 - (y - bounds.y0) / (bounds.y1 - bounds.y0)) * ih;
  const invX = (px: number) => bounds.x0 + ((px - M.left) / iw) * (bounds.x1 - bounds.x0);

  function toSvgX(clientX: number): number {
    const rect = svgRef.current!.getBoundingClientRect();
    return ((clientX - rect.left) / rect.width) * W;
  }

  const path = (pts: ChartPoint[]) => {
    let d = "";
    let pen = false;
    for (const p of pts) {
      if (!Number.isFinite(p.y)) {
        pen = false;
        continue;
      }
      d += `${pen ? "L" : "M"}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`;
      pen = true;
    }
    return d;
  };
  const band = (pts: ChartPoint[]) => {
    const ok = pts.filter((p) => p.min != null && p.max != null);
    if (ok.length < 2) return "";
    const top = ok.map((p) => `${sx(p.x).toFixed(1)},${sy(p.max!).toFixed(1)}`);
    const bottom = ok.reverse().map((p) => `${sx(p.x).toFixed(1)},${sy(p.min!).toFixed(1)}`);
    return `M${top.join("L")}L${bottom.join("L")}Z`;
  };

  // The read-out: each series' point nearest the hovered x.
  const readout =
    hoverX == null
      ? null
      : series
          .map((s) => {
            const i = nearestIndex(s.points.map((p) => p.x), hoverX);
            return i < 0 ? null : { s, p: s.points[i]! };
          })
          .filter((r) => r != null);
  const cursorX = readout?.[0] ? readout[0].p.x : null;

  const xTicks = niceTicks(bounds.x0, bounds.x1, 5, integerX);
  const yTicks = niceTicks(bounds.y0, bounds.y1, 4);

  function onKeyDown(e: React.KeyboardEvent) {
    const xs = [...new Set(all.map((p) => p.x))].sort((a, b) => a - b);
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      e.preventDefault();
      const i = hoverX == null ? (e.key === "ArrowRight" ? -1 : xs.length) : nearestIndex(xs, hoverX);
      const j = Math.max(0, Math.min(xs.length - 1, i + (e.key === "ArrowRight" ? 1 : -1)));
      setHoverX(xs[j]!);
    } else if (e.key === "Escape") {
      setHoverX(null);
    }
  }

  return (
    <figure className="chart">
      <figcaption className="chart-title" title={title}>
        {title}
      </figcaption>
      <svg
        ref={svgRef}
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`${title}: ${series.map((s) => s.label).join(", ")} over ${xLabel}. Drag to zoom, double-click to reset, arrow keys read values.`}
        tabIndex={0}
        className="chart-svg"
        onMouseMove={(e) => {
          const px = toSvgX(e.clientX);
          setHoverX(invX(px));
          if (drag) setDrag({ ...drag, x1: Math.max(M.left, Math.min(W - M.right, px)) });
        }}
        onMouseLeave={() => {
          setHoverX(null);
          setDrag(null);
        }}
        onMouseDown={(e) => {
          if (e.button !== 0 || !onZoom) return;
          const px = toSvgX(e.clientX);
          setDrag({ x0: px, x1: px });
        }}
        onMouseUp={() => {
          if (!drag) return;
          setDrag(null);
          if (Math.abs(drag.x1 - drag.x0) < 6 || !onZoom) return;
          const lo = invX(Math.min(drag.x0, drag.x1));
          const hi = invX(Math.max(drag.x0, drag.x1));
          const steps = all.filter((p) => p.x >= lo && p.x <= hi).map((p) => p.step);
          if (steps.length) onZoom({ from: Math.min(...steps), to: Math.max(...steps) });
        }}
        onDoubleClick={() => onResetZoom?.()}
        onKeyDown={onKeyDown}
        onBlur={() => setHoverX(null)}
      >
        <defs>
          <clipPath id={clipId}>
            <rect x={M.left} y={M.top} width={iw} height={ih} />
          </clipPath>
        </defs>
        {yTicks.map((t) => (
          <g key={`y${t}`}>
            <line className="chart-gridline" x1={M.left} x2={W - M.right} y1={sy(t)} y2={sy(t)} />
            <text className="chart-tick" x={M.left - 6} y={sy(t) + 4} textAnchor="end">
              {formatTick(t)}
            </text>
          </g>
        ))}
        {xTicks.map((t) => (
          <text key={`x${t}`} className="chart-tick" x={sx(t)} y={H - 8} textAnchor="middle">
            {formatX(t)}
          </text>
        ))}
        <g clipPath={`url(#${clipId})`}>
          {series.map((s) => (s.band ? <path key={`b${s.id}`} d={band(s.points)} fill={s.color} opacity={0.12} /> : null))}
          {series.map((s) => (
            <path key={s.id} d={path(s.points)} fill="none" stroke={s.color} strokeWidth={1.6} data-series={s.label} />
          ))}
          {series.map((s) =>
            s.points.length === 1 ? <circle key={`c${s.id}`} cx={sx(s.points[0]!.x)} cy={sy(s.points[0]!.y)} r={3} fill={s.color} /> : null,
          )}
        </g>
        {cursorX != null && <line className="chart-cursor" x1={sx(cursorX)} x2={sx(cursorX)} y1={M.top} y2={H - M.bottom} />}
        {drag && (
          <rect
            className="chart-selection"
            x={Math.min(drag.x0, drag.x1)}
            y={M.top}
            width={Math.abs(drag.x1 - drag.x0)}
            height={ih}
          />
        )}
      </svg>
      <div className="chart-legend" aria-live="polite">
        {(readout && readout.length ? readout : series.map((s) => ({ s, p: null as ChartPoint | null }))).map(({ s, p }) => (
          <span key={s.id} className="chart-legend-item">
            <span className="chart-swatch" style={{ background: s.color }} />
            {s.label}
            {p && (
              <>
                {" "}
                <strong>{formatTick(p.y)}</strong> <span className="muted">@ step {p.step}</span>
              </>
            )}
          </span>
        ))}
      </div>
    </figure>
  );
}
