/** The one-line progress view of `envace runs watch`: bar, steps, percent, ETA, status and the latest metrics. Pure. */

export interface RunProgress {
  name: string;
  /** train: progress counts training steps; eval: episodes (an evaluation is one step). */
  kind?: string;
  status: string;
  progressStep: number;
  totalSteps: number;
  etaSeconds: number | null;
  latestMetrics: Record<string, number | null>;
  error?: string | null;
}

/** Metrics shown when the run has them, in this order; otherwise its first keys. */
const PREFERRED = [/^reward\/mean$/, /^val\/avg@\d+$/, /^val\/pass@\d+$/, /^fidelity\/mean$/, /^judge\/pass_rate$/];
const SHOWN = 3;

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${String(m % 60).padStart(2, "0")}m`;
}

export function formatMetric(value: number | null): string {
  if (value == null || !Number.isFinite(value)) return "—";
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 1e-3 || abs >= 1e5)) return value.toExponential(2);
  return String(Number(value.toFixed(abs >= 100 ? 1 : 3)));
}

export function pickMetrics(latest: Record<string, number | null>): [string, number | null][] {
  const keys = Object.keys(latest);
  const chosen: string[] = [];
  for (const p of PREFERRED) {
    const k = keys.find((key) => p.test(key));
    if (k && !chosen.includes(k)) chosen.push(k);
  }
  for (const k of keys.sort()) if (chosen.length < SHOWN && !chosen.includes(k)) chosen.push(k);
  return chosen.slice(0, SHOWN).map((k) => [k, latest[k] ?? null]);
}

export function renderBar(fraction: number, width: number): string {
  const f = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const full = Math.round(f * width);
  return `[${"#".repeat(full)}${"-".repeat(width - full)}]`;
}

/** What a run's progress counts, as the run page says it (app/_components/status.tsx progressUnit). */
export function progressUnit(kind: string | undefined): "steps" | "episodes" {
  return kind === "eval" ? "episodes" : "steps";
}

/**
 * E.g. `[######------------] 12/40 steps  30%  ETA 4m 10s  running  reward/mean 0.412 · fidelity/mean 0.83`;
 * an evaluation counts its episodes: `[####--] 8/12 episodes …`.
 */
export function renderProgress(run: RunProgress, width = 24): string {
  const total = Math.max(1, run.totalSteps);
  const fraction = run.progressStep / total;
  const eta = run.status === "running" && run.etaSeconds != null ? `ETA ${formatDuration(run.etaSeconds)}` : "ETA —";
  const metrics = pickMetrics(run.latestMetrics)
    .map(([k, v]) => `${k} ${formatMetric(v)}`)
    .join(" · ");
  const parts = [renderBar(fraction, width), `${run.progressStep}/${run.totalSteps} ${progressUnit(run.kind)}`, `${Math.floor(fraction * 100)}%`.padStart(4), eta, run.status];
  if (metrics) parts.push(metrics);
  return parts.join("  ");
}

/** Exit codes of `envace runs watch`, by the run's outcome. */
export const outcomeExitCodes: Record<string, number> = { succeeded: 0, failed: 2, cancelled: 3 };
