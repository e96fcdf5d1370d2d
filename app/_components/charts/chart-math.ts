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

/** One role's line on a chart that overlays act and rehearse: its mean, with its min–max as a band. */
export interface RoleLine {
  role: Role;
  key: string;
  min?: string;
  max?: string;
}

export interface PanelChart {
  /** The chart's id and title: its base key, with `{role}` where act and rehearse are overlaid. */
  base: string;
  /** Every key the chart reads (the statistics of its base, or of each role). */
  keys: string[];
  /** Set on a chart overlaying the roles: one line per role (groupPanels with `overlayRoles`). */
  roles?: RoleLine[];
}

export interface Panel {
  id: string;
  title: string;
  /** Charts in the panel: each groups the mean/min/max/std statistics of one base key. */
  charts: PanelChart[];
}

export const ROLES = ["act", "rehearse"] as const;
export type Role = (typeof ROLES)[number];

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

/**
 * The family of a key. An evaluation's keys carry `val/` (worker/runner/persist.ts): those of a family
 * (`val/response_length/act/mean`) join it, the evaluation's own scores (`val/avg@4`, `val/<dataset>/…`)
 * are "Validation".
 */
function familyOf(key: string): string {
  const own = families.find((f) => f.match(key));
  if (own && own.id !== "val") return own.id;
  const rest = key.startsWith("val/") ? key.slice(4) : null;
  const inner = rest !== null ? families.find((f) => f.id !== "val" && f.match(rest)) : undefined;
  return inner?.id ?? own?.id ?? "other";
}

const STATS = new Set(["mean", "max", "min", "std"]);

/** The chart a key belongs on: statistics of one quantity share a chart. */
export function chartBase(key: string): string {
  const i = key.lastIndexOf("/");
  return i > 0 && STATS.has(key.slice(i + 1)) ? key.slice(0, i) : key;
}

/** Panels the compare page shows closed until opened (the others fetch their series at once); a run page without an overview leaves them under More panels. */
export const DEFAULT_CLOSED_PANELS: ReadonlySet<string> = new Set(["termination", "other"]);

/** Most points per series a chart asks for (downsampled on the server). */
export const MAX_CHART_POINTS = 300;

/** Most keys one `metrics.series` query may ask for (its input schema). */
export const MAX_KEYS_PER_QUERY = 40;

/**
 * The `metrics.series` queries of one open panel, per run: every chart's keys (with several runs each
 * chart's first), in lists of at most MAX_KEYS_PER_QUERY, so a panel of 60 charts asks for all of them.
 */
export function panelQueryKeys(panel: Panel, multiRun = false): string[][] {
  const keys = [...new Set(panel.charts.flatMap((c) => (multiRun ? c.keys.slice(0, 1) : c.keys)))];
  const out: string[][] = [];
  for (let i = 0; i < keys.length; i += MAX_KEYS_PER_QUERY) out.push(keys.slice(i, i + MAX_KEYS_PER_QUERY));
  return out;
}

/**
 * A key with exactly one `act` or `rehearse` segment, as the same key with `{role}` in its place:
 * `critic/act/advantages/mean` → `critic/{role}/advantages/mean`, role act.
 */
export function roleTemplate(key: string): { template: string; role: Role } | null {
  const parts = key.split("/");
  const at = parts.flatMap((p, i) => ((ROLES as readonly string[]).includes(p) ? [i] : []));
  if (at.length !== 1) return null;
  const role = parts[at[0]!] as Role;
  parts[at[0]!] = "{role}";
  return { template: parts.join("/"), role };
}

/** The charts of one role pair merged into one chart per base: each role's mean (or only key) with its min and max. */
function overlayRoleCharts(charts: PanelChart[]): PanelChart[] {
  const out: PanelChart[] = [];
  const merged = new Map<string, PanelChart>();
  for (const chart of charts) {
    const t = roleTemplate(chart.base);
    if (!t) {
      out.push(chart);
      continue;
    }
    let target = merged.get(t.template);
    if (!target) {
      target = { base: t.template, keys: [], roles: [] };
      merged.set(t.template, target);
      out.push(target);
    }
    const stat = (s: string) => chart.keys.find((k) => k === `${chart.base}/${s}`);
    const line: RoleLine = { role: t.role, key: stat("mean") ?? chart.keys[0]! };
    const min = stat("min");
    const max = stat("max");
    if (min && max) Object.assign(line, { min, max });
    target.roles!.push(line);
    target.keys.push(line.key, ...[line.min, line.max].filter((k): k is string => !!k));
  }
  for (const c of merged.values()) c.roles!.sort((a, b) => ROLES.indexOf(a.role) - ROLES.indexOf(b.role));
  return out;
}

/**
 * Group metric keys into titled panels of charts. With `overlayRoles`, a metric that exists per role
 * (reward, advantages, response length of act and rehearse) is one chart with a line per role. Each
 * evaluation suite of the run (schedule.evalSuites) gets its own panel of its `val/<suite>/…` keys,
 * after the run's own validation panel.
 */
export function groupPanels(keys: string[], options: { overlayRoles?: boolean; suites?: readonly { name: string; dataset?: string }[] } = {}): Panel[] {
  const suites = options.suites ?? [];
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
    const panel = panels.get(suite ? `suite:${suite.name}` : familyOf(key))!;
    const base = chartBase(key);
    const chart = panel.charts.find((c) => c.base === base);
    if (chart) chart.keys.push(key);
    else panel.charts.push({ base, keys: [key] });
  }
  const order = (k: string) => ["mean", "min", "max", "std"].indexOf(k.slice(k.lastIndexOf("/") + 1));
  for (const p of panels.values()) {
    p.charts.sort((a, b) => a.base.localeCompare(b.base));
    for (const c of p.charts) c.keys.sort((a, b) => order(a) - order(b) || a.localeCompare(b));
    if (options.overlayRoles) p.charts = overlayRoleCharts(p.charts);
  }
  return [...panels.values()].filter((p) => p.charts.length > 0);
}

/** What a run page charts first: its kind decides which metrics matter. */
export type RunChartKind = "train" | "eval" | "test-time";

/** The run kind of a run row: test-time rehearsal is an evaluation with `testTime.enabled`. */
export function runChartKind(run: { kind: string; config?: unknown }): RunChartKind {
  if (run.kind === "train") return "train";
  const testTime = (run.config as { testTime?: { enabled?: unknown } } | null | undefined)?.testTime;
  return testTime?.enabled === true ? "test-time" : "eval";
}

const evalOverview: RegExp[] = [
  /^val\/avg@\d+$/,
  /^val\/pass@\d+$/,
  /^val\/[^/]+\/test_score$/,
  /^val\/tau2\/pass\^\d+$/,
  /^val\/bfcl\/summary\/overall$/,
  /^val\/\{role\}\/valid_action_ratio$/,
  /^val\/response_length\/\{role\}$/,
  /^val\/fidelity(\/score)?$/,
  /^val\/judge\/pass_rate$/,
  /^val\/generation\/failed_share$/,
  /^val\/environment\/error_share$/,
];

/** The overview's charts per run kind, in order: chart bases (role charts with `{role}`). */
export const OVERVIEW_CHARTS: Record<RunChartKind, RegExp[]> = {
  train: [
    /^(episode\/reward|reward)$/,
    /^(critic\/\{role\}\/score|reward\/\{role\})$/,
    /^critic\/\{role\}\/advantages$/,
    /^response_length\/\{role\}$/,
    /^fidelity(\/score)?$/,
    /^judge\/pass_rate$/,
    /^val\/avg@\d+$/,
    /^val\/pass@\d+$/,
    /^actor\/(kl|ppo_kl)$/,
    /^actor\/entropy$/,
    /^actor\/loss$/,
    /^generation\/failed_share$/,
  ],
  eval: evalOverview,
  "test-time": [...evalOverview.slice(0, 5), /^val\/testtime\/private_tokens$/, /^val\/testtime\/attempts$/, /^val\/testtime\/feedback_failed$/, ...evalOverview.slice(5)],
};

/** At most this many charts in the overview. */
export const MAX_OVERVIEW_CHARTS = 12;

/**
 * The run page's first panel: the charts that matter for the run's kind (act and rehearse overlaid),
 * or null when the run has none of them yet. Every other chart stays in its family's panel.
 */
export function overviewPanel(kind: RunChartKind, keys: string[]): Panel | null {
  const charts = groupPanels(keys, { overlayRoles: true }).flatMap((p) => p.charts);
  const picked: PanelChart[] = [];
  for (const pattern of OVERVIEW_CHARTS[kind]) for (const c of charts) if (pattern.test(c.base) && !picked.includes(c)) picked.push(c);
  if (picked.length === 0) return null;
  return { id: "overview", title: `Overview (${kind === "test-time" ? "test-time evaluation" : kind === "eval" ? "evaluation" : "training"})`, charts: picked.slice(0, MAX_OVERVIEW_CHARTS) };
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
