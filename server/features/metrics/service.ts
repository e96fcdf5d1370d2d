/**
 * Run metrics for charts: the keys a run has, and series downsampled IN SQL so a chart never pulls
 * raw points. Short series are bucketed from metric_point (its primary key (runId, key, step)); long ones
 * from the metric_rollup buckets the triggers keep (rollup.ts), so a 10 M-point run charts in milliseconds.
 */
import { prisma } from "../../../lib/db";
import { bucketPlan } from "./rollup";

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
 * per bucket (min/max keep spikes visible that a plain average would hide). Buckets of 4 steps or more
 * are aligned to multiples of their width (so rollup buckets nest in them); smaller ones start at the
 * series' first step.
 */
export async function metricSeries(input: SeriesInput): Promise<{ series: Series[]; originTs: number | null }> {
  const keys = [...new Set(input.keys)];
  if (keys.length === 0) return { series: [], originTs: null };
  const from = input.stepRange?.from ?? -2147483648;
  const to = input.stepRange?.to ?? 2147483647;
  // Bounds per key from two index probes (first and last step in range); then each key is bucketed from
  // its raw points (short series) or from the rollup level that fits (server/features/metrics/rollup.ts).
  const bounds = await prisma.$queryRaw<{ key: string; lo: number; hi: number }[]>`
    select k.key, lo.step as lo, hi.step as hi
    from unnest(${keys}::text[]) as k(key)
    cross join lateral (
      select step from metric_point
      where "runId" = ${input.runId} and key = k.key and step between ${from}::int and ${to}::int
      order by step asc limit 1
    ) lo
    cross join lateral (
      select step from metric_point
      where "runId" = ${input.runId} and key = k.key and step between ${from}::int and ${to}::int
      order by step desc limit 1
    ) hi`;
  const raw = { key: [] as string[], lo: [] as number[], hi: [] as number[], width: [] as number[] };
  const rolled = { key: [] as string[], lo: [] as number[], hi: [] as number[], width: [] as number[], level: [] as number[], first: [] as number[], last: [] as number[] };
  for (const b of bounds) {
    const plan = bucketPlan(b.lo, b.hi, input.maxPoints);
    const into = plan.mode === "raw" ? raw : rolled;
    into.key.push(b.key);
    into.lo.push(b.lo);
    into.hi.push(b.hi);
    into.width.push(plan.width);
    if (plan.mode === "rollup") {
      rolled.level.push(plan.level);
      rolled.first.push(plan.firstBucket);
      rolled.last.push(plan.lastBucket);
    }
  }
  type Row = { key: string; step: number; mean: number; min: number; max: number; n: number; ts: Date; width: number };
  const [rawRows, rolledRows] = await Promise.all([
    raw.key.length === 0
      ? Promise.resolve([] as Row[])
      : prisma.$queryRaw<Row[]>`
    with b as (select * from unnest(${raw.key}::text[], ${raw.lo}::int[], ${raw.hi}::int[], ${raw.width}::int[]) as b(key, lo, hi, width))
    select p.key,
           round(avg(p.step))::int as step,
           avg(p.value)::float8 as mean, min(p.value)::float8 as min, max(p.value)::float8 as max,
           count(*)::int as n, max(p.ts) as ts, b.width
    from b
    join metric_point p on p."runId" = ${input.runId} and p.key = b.key and p.step between b.lo and b.hi
    group by p.key, b.width, (p.step - b.lo) / b.width`,
    rolled.key.length === 0
      ? Promise.resolve([] as Row[])
      : prisma.$queryRaw<Row[]>`
    with b as (
      select * from unnest(${rolled.key}::text[], ${rolled.lo}::int[], ${rolled.hi}::int[], ${rolled.width}::int[], ${rolled.level}::int[], ${rolled.first}::int[], ${rolled.last}::int[])
        as b(key, lo, hi, width, level, first, last)
    ),
    parts as (
      -- Rollup buckets wholly inside [lo, hi] …
      select r.key, b.width, floor((r.bucket::float8 * b.level) / b.width)::int as bucket, r.n, r."sumStep" as "sumStep", r.sum, r.min, r.max, r."maxTs" as ts
      from b join metric_rollup r on r."runId" = ${input.runId} and r.key = b.key and r.width = b.level and r.bucket between b.first and b.last
      union all
      -- … and the raw points of the partial ones at either end (two key ranges: one range with an OR
      -- filter would read every point of the series).
      select p.key, b.width, floor(p.step::float8 / b.width)::int, 1, p.step, p.value, p.value, p.value, p.ts
      from b join metric_point p on p."runId" = ${input.runId} and p.key = b.key and p.step between b.lo and least(b.hi, b.first * b.level - 1)
      union all
      select p.key, b.width, floor(p.step::float8 / b.width)::int, 1, p.step, p.value, p.value, p.value, p.ts
      from b join metric_point p on p."runId" = ${input.runId} and p.key = b.key and p.step between greatest(b.lo, (b.last + 1) * b.level, b.first * b.level) and b.hi
    )
    select key, round((sum("sumStep") / sum(n))::numeric)::int as step,
           (sum(sum) / sum(n))::float8 as mean, min(min)::float8 as min, max(max)::float8 as max,
           sum(n)::int as n, max(ts) as ts, width
    from parts group by key, width, bucket`,
  ]);
  const rows = [...rawRows, ...rolledRows].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.step - b.step));
  // Time axis origin: the keys' first points (by step: points are written as steps commit), so zooming
  // does not shift the axis; one index probe per key, not a pass over the points.
  let originTs: number | null = null;
  if (input.axis === "time") {
    const first = await prisma.$queryRaw<{ ts: Date | null }[]>`
      select min(f.ts) as ts from unnest(${keys}::text[]) as k(key)
      cross join lateral (select ts from metric_point where "runId" = ${input.runId} and key = k.key order by step asc limit 1) f`;
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
