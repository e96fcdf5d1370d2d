/**
 * Which pre-aggregated buckets a chart reads (metric_rollup, kept by triggers on metric_point; the widths
 * are also in the migration's metric_rollup_widths()).
 *
 * A series of `hi - lo + 1` steps drawn in at most `maxPoints` buckets needs buckets of at least
 * `ceil(span / maxPoints)` steps. Under 4 steps per bucket the raw points are few (≤ 4 × maxPoints) and are
 * bucketed from `lo` as before. From 4 on, buckets are aligned to multiples of their width (bucket =
 * floor(step / width)) and the width is a multiple of the widest rollup level that fits, so every rollup
 * bucket falls inside one chart bucket: a chart reads about span / level rows instead of span points.
 */
export const ROLLUP_WIDTHS = [4, 32, 256, 2048] as const;

export type BucketPlan =
  | { mode: "raw"; width: number }
  | {
      mode: "rollup";
      /** Chart bucket width in steps (a multiple of `level`). */
      width: number;
      /** The rollup level read. */
      level: number;
      /** Rollup buckets wholly inside [lo, hi]: first and last index (first > last: none). */
      firstBucket: number;
      lastBucket: number;
    };

export function bucketPlan(lo: number, hi: number, maxPoints: number): BucketPlan {
  const need = Math.max(1, Math.ceil((hi - lo + 1) / maxPoints));
  const level = [...ROLLUP_WIDTHS].reverse().find((w) => w <= need);
  if (level === undefined) return { mode: "raw", width: need };
  let width = Math.ceil(need / level) * level;
  // Aligned to multiples of the width, a partial bucket at each end can add one: widen until it fits.
  while (Math.floor(hi / width) - Math.floor(lo / width) + 1 > maxPoints) width += level;
  return { mode: "rollup", width, level, firstBucket: Math.ceil(lo / level), lastBucket: Math.floor((hi + 1) / level) - 1 };
}
