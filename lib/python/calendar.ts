/**
 * The proleptic Gregorian calendar as CPython's `datetime` counts it: ordinal 1 is 0001-01-01. Shared by
 * lib/python/datetime.ts and the τ² harness's `date`/`datetime` values (worker/envs/tau2/harness/py.ts).
 */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
export const daysInMonth = (y: number, m: number) => (m === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[m - 1]!);

/** Days since 0001-01-01 (ordinal 1 = that day), as `date.toordinal()`. */
export function toOrdinal(y: number, m: number, d: number): number {
  const y1 = y - 1;
  let days = y1 * 365 + Math.floor(y1 / 4) - Math.floor(y1 / 100) + Math.floor(y1 / 400);
  for (let i = 1; i < m; i++) days += daysInMonth(y, i);
  return days + d;
}

/** `date.fromordinal(n)` as [year, month, day], by CPython's 400/100/4/1-year cycles (any year 1–9999). */
export function fromOrdinal(n: number): [number, number, number] {
  let n0 = n - 1;
  const n400 = Math.floor(n0 / 146097);
  n0 -= n400 * 146097;
  const n100 = Math.floor(n0 / 36524);
  n0 -= n100 * 36524;
  const n4 = Math.floor(n0 / 1461);
  n0 -= n4 * 1461;
  const n1 = Math.floor(n0 / 365);
  n0 -= n1 * 365;
  const year = n400 * 400 + n100 * 100 + n4 * 4 + n1 + 1;
  // The last day of a 4- or 400-year cycle.
  if (n1 === 4 || n100 === 4) return [year - 1, 12, 31];
  let month = 1;
  while (n0 >= daysInMonth(year, month)) {
    n0 -= daysInMonth(year, month);
    month++;
  }
  return [year, month, n0 + 1];
}
