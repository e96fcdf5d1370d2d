/**
 * 95 % intervals for success rates and their differences, as the result tables show them.
 *
 * - A rate (a cell: Avg@k over the episodes that ran) gets the Wilson score interval (Wilson 1927):
 *   well-behaved at 0 % and 100 % and for small n, unlike the normal approximation.
 * - A difference or any other linear combination of independent rates (a Δ: an arm's Overall minus the
 *   no-rehearsal Overall, a run's solved share minus another's) gets the MOVER interval built from the
 *   rates' Wilson limits (Zou & Donner 2008); for p1 − p2 it is Newcombe's hybrid score interval
 *   (Newcombe 1998, method 10).
 *
 * Trials are taken as independent Bernoulli draws with n = the episodes that ran (several trials of one
 * task are correlated, so the intervals are, if anything, too narrow for k > 1). Pure.
 */

/** z for a two-sided 95 % interval. */
export const Z95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/** Wilson score interval for a rate `p` (0…1) observed over `n` trials; null without trials. */
export function wilson(p: number, n: number, z = Z95): Interval | null {
  if (!(n > 0) || !Number.isFinite(p)) return null;
  const rate = Math.min(1, Math.max(0, p));
  const z2 = z * z;
  const centre = (rate + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((rate * (1 - rate)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** Wilson interval from counts. */
export const wilsonCounts = (successes: number, n: number, z = Z95) => wilson(n > 0 ? successes / n : NaN, n, z);

export interface RateTerm {
  /** Coefficient of the rate in the combination (e.g. 1 and −1 for a difference, 1/B for a mean of B). */
  coef: number;
  /** The observed rate, 0…1. */
  p: number;
  /** Trials behind it. */
  n: number;
}

/**
 * MOVER interval for θ = Σ coef·p over independent rates, with each rate's Wilson limits:
 * L = θ − √Σ (coef·p − min(coef·l, coef·u))², U = θ + √Σ (max(coef·l, coef·u) − coef·p)².
 * Null when any term has no trials.
 */
export function moverLinear(terms: readonly RateTerm[], z = Z95): (Interval & { estimate: number }) | null {
  let estimate = 0;
  let below = 0;
  let above = 0;
  for (const t of terms) {
    const w = wilson(t.p, t.n, z);
    if (!w) return null;
    const value = t.coef * t.p;
    const a = t.coef * w.low;
    const b = t.coef * w.high;
    estimate += value;
    below += (value - Math.min(a, b)) ** 2;
    above += (Math.max(a, b) - value) ** 2;
  }
  return { estimate, low: estimate - Math.sqrt(below), high: estimate + Math.sqrt(above) };
}

/** Newcombe's interval for p1 − p2 (independent rates). */
export const newcombeDifference = (p1: number, n1: number, p2: number, n2: number, z = Z95) =>
  moverLinear(
    [
      { coef: 1, p: p1, n: n1 },
      { coef: -1, p: p2, n: n2 },
    ],
    z,
  );

/** "[12.3, 45.6]" in percentage points (rates given as 0…1). */
export function formatIntervalPct(i: Interval | null | undefined, digits = 1): string {
  if (!i) return "";
  return `[${(100 * i.low).toFixed(digits)}, ${(100 * i.high).toFixed(digits)}]`;
}
