/**
 * A report chart as a standalone SVG document (one line per run, axes, legend), for exports that cannot
 * run the app's interactive chart: the Markdown export embeds it as an image. Pure; every text is
 * XML-escaped, and the numbers are rounded so the same chart always gives the same bytes.
 */
import type { ReportChart } from "./document";

/** Series colours, by the run's position in the report (the app's charts use the same list). */
export const chartPalette = ["#2f5bea", "#d9480f", "#2b8a3e", "#ae3ec9", "#e67700", "#0c8599", "#c2255c", "#5c940d"];

const W = 640;
const M = { top: 28, right: 16, bottom: 40, left: 56 };
const PLOT_H = 240;
const LEGEND_ROW = 16;

export function xmlEscape(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);
}

/** About `count` round tick values covering [lo, hi]. */
export function ticks(lo: number, hi: number, count = 5, integer = false): number[] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (hi === lo) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 5, 10].map((f) => f * mag).find((s) => s >= raw) ?? 10 * mag;
  if (integer) step = Math.max(1, Math.round(step));
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

const num = (v: number) => String(Math.round(v * 10) / 10);

function label(v: number): string {
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(1);
  return String(Number(v.toPrecision(4)));
}

/** `runOrder` gives each run its colour (its position in the report). */
export function chartSvg(chart: ReportChart, runOrder: string[], title: string = chart.key): string {
  const series = chart.series.filter((s) => s.points.length > 0);
  const legendRows = Math.max(1, Math.ceil(series.length / 3));
  const H = M.top + PLOT_H + M.bottom + legendRows * LEGEND_ROW;
  const pts = series.flatMap((s) => s.points);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${M.left}" y="18" font-size="13" font-weight="bold">${xmlEscape(title)}</text>`,
  ];
  if (pts.length === 0) {
    parts.push(`<text x="${W / 2}" y="${M.top + PLOT_H / 2}" text-anchor="middle" fill="#6b7483">no data</text>`, "</svg>");
    return parts.join("");
  }
  let x0 = Math.min(...pts.map((p) => p.step));
  let x1 = Math.max(...pts.map((p) => p.step));
  let y0 = Math.min(...pts.map((p) => p.value));
  let y1 = Math.max(...pts.map((p) => p.value));
  if (x0 === x1) [x0, x1] = [x0 - 1, x1 + 1];
  if (y0 === y1) [y0, y1] = [y0 - 0.5, y1 + 0.5];
  const pad = (y1 - y0) * 0.05;
  y0 -= pad;
  y1 += pad;
  const plotW = W - M.left - M.right;
  const sx = (x: number) => M.left + ((x - x0) / (x1 - x0)) * plotW;
  const sy = (y: number) => M.top + PLOT_H - ((y - y0) / (y1 - y0)) * PLOT_H;

  parts.push(`<g stroke="#dfe3ea" stroke-width="1">`);
  for (const t of ticks(y0, y1)) parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${num(sy(t))}" y2="${num(sy(t))}"/>`);
  parts.push("</g>", `<g fill="#6b7483" text-anchor="end">`);
  for (const t of ticks(y0, y1)) parts.push(`<text x="${M.left - 6}" y="${num(sy(t) + 4)}">${xmlEscape(label(t))}</text>`);
  parts.push("</g>", `<g fill="#6b7483" text-anchor="middle">`);
  for (const t of ticks(x0, x1, 6, true)) parts.push(`<text x="${num(sx(t))}" y="${M.top + PLOT_H + 16}">${xmlEscape(label(t))}</text>`);
  parts.push(
    "</g>",
    `<text x="${M.left + plotW / 2}" y="${M.top + PLOT_H + 32}" text-anchor="middle" fill="#6b7483">step</text>`,
    `<rect x="${M.left}" y="${M.top}" width="${plotW}" height="${PLOT_H}" fill="none" stroke="#b8bfcc"/>`,
  );
  series.forEach((s, i) => {
    const color = chartPalette[Math.max(0, runOrder.indexOf(s.runId)) % chartPalette.length]!;
    const d = s.points.map((p) => `${num(sx(p.step))},${num(sy(p.value))}`).join(" ");
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${d}"/>`);
    const lx = M.left + (i % 3) * (plotW / 3);
    const ly = M.top + PLOT_H + M.bottom + Math.floor(i / 3) * LEGEND_ROW + 10;
    parts.push(`<rect x="${num(lx)}" y="${ly - 8}" width="10" height="10" fill="${color}"/>`, `<text x="${num(lx + 14)}" y="${ly + 1}">${xmlEscape(s.runName)}</text>`);
  });
  parts.push("</svg>");
  return parts.join("");
}
