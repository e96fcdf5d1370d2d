/** Pure helpers behind the charts: smoothing, metric grouping into panels, axis ticks. */

/**
 * Debiased exponential moving average (the TensorBoard / W&B default): weight in [0, 1), 0 = raw.
 * Non-finite values are skipped (they keep the previous smoothed value out of the average).
 */
export function ema(values: number[], weight: number): number[] {
  if (weight <= 0) return values.slice();
  const w = Math.min(weight, 0.999);
  let last = 0;
  let steps = 0;
  return values.map((v) => {
    if (!Number.isFinite(v)) return v;
    last = last * w + (1 - w) * v;
    steps++;
    return last / (1 - Math.pow(w, steps));
  });
}

export interface Panel {
  id: string;
  title: string;
  /** Charts in the panel: each groups the mean/min/max/std statistics of one base key. */
  charts: { base: string; keys: string[] }[];
}

/** Known families, in display order; anything else lands in "Other". */
const families: { id: string; title: string; match: (k: string) => boolean }[] = [
  { id: "reward", title: "Reward", match: (k) => /^(reward|episode)\//.test(k) || /^critic\/[^/]+\/(score|rewards)\//.test(k) },
  { id: "advantage", title: "Advantages and returns", match: (k) => /^critic\//.test(k) },
  { id: "fidelity", title: "Rehearsal fidelity", match: (k) => k.startsWith("fidelity/") },
  { id: "judge", title: "Judge", match: (k) => k.startsWith("judge/") },
  { id: "generation", title: "Generation health (failed generations per step)", match: (k) => k.startsWith("generation/") },
  { id: "length", title: "Response and prompt lengths", match: (k) => /^(response_length|prompt_length)\//.test(k) },
  { id: "actor", title: "Policy update (KL, entropy, clipping, loss)", match: (k) => /^(actor|training)\//.test(k) },
  { id: "val", title: "Validation", match: (k) => k.startsWith("val/") },
  { id: "perf", title: "Throughput", match: (k) => k.startsWith("perf/") },
  { id: "timing", title: "Step time", match: (k) => /^timing_(s|per_token_ms)\//.test(k) },
  { id: "termination", title: "Termination reasons", match: (k) => k.startsWith("termination/") },
];

const STATS = new Set(["mean", "max", "min", "std"]);

/** The chart a key belongs on: statistics of one quantity share a chart. */
export function chartBase(key: string): string {
  const i = key.lastIndexOf("/");
  return i > 0 && STATS.has(key.slice(i + 1)) ? key.slice(0, i) : key;
}

/** Panels the run page shows closed until opened (the others fetch their series at once). */
export const DEFAULT_CLOSED_PANELS: ReadonlySet<string> = new Set(["termination", "other"]);

/** Most points per series a chart asks for (downsampled on the server). */
export const MAX_CHART_POINTS = 300;

/** The `metrics.series` keys of one panel's query (one query per open panel and run). */
export function panelQueryKeys(panel: Panel, multiRun = false): string[] {
  return [...new Set(panel.charts.flatMap((c) => (multiRun ? c.keys.slice(0, 1) : c.keys)))].slice(0, 40);
}

/**
 * Group metric keys into titled panels of charts. Each evaluation suite of the run (schedule.evalSuites)
 * gets its own panel of its `val/<suite>/…` keys, after the run's own validation panel.
 */
export function groupPanels(keys: string[], suites: readonly { name: string; dataset?: string }[] = []): Panel[] {
  const panels = new Map<string, Panel>();
  for (const f of families) {
    panels.set(f.id, { id: f.id, title: f.title, charts: [] });
    if (f.id === "val") {
      for (const s of suites) panels.set(`suite:${s.name}`, { id: `suite:${s.name}`, title: `Evaluation suite ${s.name}${s.dataset ? ` (${s.dataset})` : ""}`, charts: [] });
    }
  }
  panels.set("other", { id: "other", title: "Other", charts: [] });
  for (const key of [...keys].sort()) {
    const suite = suites.find((s) => key.startsWith(`val/${s.name}/`));
    const family = suite ? `suite:${suite.name}` : (families.find((f) => f.match(key))?.id ?? "other");
    const panel = panels.get(family)!;
    const base = chartBase(key);
    const chart = panel.charts.find((c) => c.base === base);
    if (chart) chart.keys.push(key);
    else panel.charts.push({ base, keys: [key] });
  }
  const order = (k: string) => ["mean", "min", "max", "std"].indexOf(k.slice(k.lastIndexOf("/") + 1));
  for (const p of panels.values()) {
    p.charts.sort((a, b) => a.base.localeCompare(b.base));
    for (const c of p.charts) c.keys.sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  }
  return [...panels.values()].filter((p) => p.charts.length > 0);
}

/** About `count` round tick values covering [lo, hi]; `integer` keeps them whole (steps). */
export function niceTicks(lo: number, hi: number, count = 5, integer = false): number[] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (lo === hi) return [lo];
  const span = hi - lo;
  const raw = span / Math.max(1, count);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  let step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= count) ?? 10 * mag;
  if (integer) step = Math.max(1, Math.round(step));
  const ticks: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** Short numbers for axes and tooltips: 0.123, 12.3k, 1.2e-5. */
export function formatTick(v: number): string {
  if (!Number.isFinite(v)) return "—";
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e7)) return v.toExponential(1);
  if (a >= 1e4) return `${Number((v / 1000).toPrecision(3))}k`;
  return String(Number(v.toPrecision(4)));
}

/** Seconds as a compact duration for the wall-time axis. */
export function formatSeconds(s: number): string {
  if (s < 120) return `${Math.round(s)}s`;
  if (s < 7200) return `${Number((s / 60).toPrecision(3))}m`;
  return `${Number((s / 3600).toPrecision(3))}h`;
}

/** Index of the point whose x is nearest to `x` (points sorted by x). */
export function nearestIndex(xs: number[], x: number): number {
  if (xs.length === 0) return -1;
  let lo = 0;
  let hi = xs.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < x) lo = mid;
    else hi = mid;
  }
  return Math.abs(xs[lo]! - x) <= Math.abs(xs[hi]! - x) ? lo : hi;
}
