/**
 * The spread of independent passes of an evaluation (`repeats`): their mean, sample standard deviation, lowest and
 * highest value and count. Pure and dependency-free, so every report module (the result table, Table 1, the run
 * page's passes) can use it without importing each other.
 */

/** The spread of a run's independent passes: their mean, sample std, lowest and highest value. */
export interface RepeatSpread {
  /** Passes with a value. */
  passes: number;
  mean: number;
  /** Sample standard deviation over the passes (n − 1); 0 for one pass. */
  std: number;
  min: number;
  max: number;
}

/** Mean, spread and count of the passes' values, or null without any. */
export function spreadOf(values: readonly number[]): RepeatSpread | null {
  const v = values.filter((x) => Number.isFinite(x));
  if (v.length === 0) return null;
  const mean = v.reduce((s, x) => s + x, 0) / v.length;
  const variance = v.length > 1 ? v.reduce((s, x) => s + (x - mean) ** 2, 0) / (v.length - 1) : 0;
  return { passes: v.length, mean, std: Math.sqrt(variance), min: Math.min(...v), max: Math.max(...v) };
}

/** "45.0 ± 7.1 (40.0–50.0, 2 passes)": a cell's value with its spread, as the exports print it. */
export function spreadText(s: RepeatSpread, digits = 1): string {
  return `${s.mean.toFixed(digits)} ± ${s.std.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)}, ${s.passes} passes)`;
}
