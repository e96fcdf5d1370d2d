/**
 * Run metrics for charts: the keys a run has, and series downsampled IN SQL so a chart never pulls
 * raw points. Reads walk the metric_point primary key (runId, key, step).
 */
import { Prisma } from "@prisma/client";
import { prisma } from "../../../lib/db";

/** Distinct metric keys of a run, by a loose index scan: one index probe per key, not a pass over every point. */
export async function listMetricKeys(runId: string): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ key: string }[]>`
    with recursive k as (
      (select key from metric_point where "runId" = ${runId} order by key limit 1)
      union all
      select (select m.key from metric_point m where m."runId" = ${runId} and m.key > k.key order by m.key limit 1)
      from k where k.key is not null
    )
    select key from k where key is not null`;
  return rows.map((r) => r.key);
}

export interface SeriesInput {
  runId: string;
  keys: string[];
  maxPoints: number;
  axis: "step" | "time";
  stepRange?: { from: number; to: number } | null;
}

/** One plotted point: a bucket of consecutive steps (a single step when the series is small). */
export interface SeriesPoint {
  /** Step at the bucket's centre (the step itself for an undivided series). */
  step: number;
  /** x on the chosen axis: the step, or seconds since the run's first metric point. */
  x: number;
  mean: number;
  min: number;
  max: number;
  /** Points in the bucket. */
  n: number;
}

export interface Series {
  key: string;
  points: SeriesPoint[];
  /** Raw points behind the series (in the step range). */
  total: number;
  /** Steps per bucket; 1 means not downsampled. */
  bucketSize: number;
}

/**
 * Downsample every requested key to at most `maxPoints` buckets of equal step width, with min/max/mean
 * per bucket (min/max keep spikes visible that a plain average would hide).
 */
export async function metricSeries(input: SeriesInput): Promise<{ series: Series[]; originTs: number | null }> {
  const keys = [...new Set(input.keys)];
  if (keys.length === 0) return { series: [], originTs: null };
  const from = input.stepRange?.from ?? -2147483648;
  const to = input.stepRange?.to ?? 2147483647;
  // Bounds per key from two index probes (first and last step in range), so the only pass over the
  // points is the bucketing one.
  const rows = await prisma.$queryRaw<
    { key: string; step: number; mean: number; min: number; max: number; n: number; ts: Date; width: number }[]
  >`
    with k as (select unnest(${keys}::text[]) as key),
    bounds as (
      select k.key, lo.step as lo,
             greatest(1, ceil((hi.step - lo.step + 1)::float8 / ${input.maxPoints}::int))::int as width
      from k
      cross join lateral (
        select step from metric_point
        where "runId" = ${input.runId} and key = k.key and step between ${from}::int and ${to}::int
        order by step asc limit 1
      ) lo
      cross join lateral (
        select step from metric_point
        where "runId" = ${input.runId} and key = k.key and step between ${from}::int and ${to}::int
        order by step desc limit 1
      ) hi
    )
    select p.key,
           round(avg(p.step))::int as step,
           avg(p.value)::float8 as mean, min(p.value)::float8 as min, max(p.value)::float8 as max,
           count(*)::int as n, max(p.ts) as ts, b.width
    from bounds b
    join metric_point p on p."runId" = ${input.runId} and p.key = b.key and p.step between ${from}::int and ${to}::int
    group by p.key, b.width, (p.step - b.lo) / b.width
    order by p.key, step`;
  // Time axis origin: the run's first point overall, so zooming does not shift the axis.
  let originTs: number | null = null;
  if (input.axis === "time") {
    const first = await prisma.$queryRaw<{ ts: Date | null }[]>`
      select min(ts) as ts from metric_point where "runId" = ${input.runId} and key in (${Prisma.join(keys)})`;
    originTs = first[0]?.ts ? first[0].ts.getTime() : null;
  }
  const byKey = new Map<string, Series>();
  for (const key of keys) byKey.set(key, { key, points: [], total: 0, bucketSize: 1 });
  for (const r of rows) {
    const s = byKey.get(r.key)!;
    s.total += r.n;
    s.bucketSize = r.width;
    s.points.push({
      step: r.step,
      x: input.axis === "time" && originTs != null ? (r.ts.getTime() - originTs) / 1000 : r.step,
      mean: r.mean,
      min: r.min,
      max: r.max,
      n: r.n,
    });
  }
  return { series: keys.map((k) => byKey.get(k)!), originTs };
}
