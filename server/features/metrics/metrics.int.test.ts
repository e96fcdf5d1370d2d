import { beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { seedRunRows } from "../../../test/fixtures/run-rows";
import { rowsReadBy } from "../../../test/plan";
import { clearSharedReads } from "../../lib/live-reads";

describe("metrics API against real Postgres", () => {
  let member: TestUser;
  let runId: string;
  let bigRunId: string;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp();
    runId = await seedRunRows(prisma, {
      name: "small",
      createdById: member.id,
      config: { policy: { node: "embedded", model: "tiny-gpt" }, reward: { judge: { node: "judge-node", model: "judge-m" } } },
      metrics: { "reward/mean": [0.1, 0.2, 0.3, 0.4], "critic/act/advantages/mean": [0, 1, 0, -1], "val/avg@4": [0.5] },
    });
    // 100,000 points for one key, plus a second key: written in SQL so the test stays fast.
    bigRunId = await seedRunRows(prisma, { name: "big", createdById: member.id });
    await prisma.$executeRawUnsafe(
      `insert into metric_point ("runId", key, step, value, ts)
       select $1, k, s, case when k = 'loss' then s::float8 else sin(s / 100.0) end, timestamp '2026-01-01' + s * interval '1 second'
       from generate_series(1, 100000) s, unnest(array['loss', 'perf/throughput']) k`,
      bigRunId,
    );
    await prisma.$executeRawUnsafe(`analyze metric_point`);
  });

  it("lists a run's metric keys", async () => {
    const caller = await callerFor(member.headers);
    expect(await caller.metrics.keys({ runId })).toEqual(["critic/act/advantages/mean", "reward/mean", "val/avg@4"]);
    expect(await caller.metrics.keys({ runId: bigRunId })).toEqual(["loss", "perf/throughput"]);
  });

  it("returns small series point by point", async () => {
    const caller = await callerFor(member.headers);
    const { series } = await caller.metrics.series({ runId, keys: ["reward/mean", "missing/key"], maxPoints: 100 });
    expect(series[0]).toMatchObject({ key: "reward/mean", total: 4, bucketSize: 1 });
    expect(series[0]!.points.map((p) => [p.step, p.x, p.mean, p.min, p.max, p.n])).toEqual([
      [1, 1, 0.1, 0.1, 0.1, 1],
      [2, 2, 0.2, 0.2, 0.2, 1],
      [3, 3, 0.3, 0.3, 0.3, 1],
      [4, 4, 0.4, 0.4, 0.4, 1],
    ]);
    expect(series[1]).toEqual({ key: "missing/key", points: [], total: 0, bucketSize: 1 });
  });

  it("downsamples 100,000 points per series in SQL with min/max/mean per bucket, fast", async () => {
    const caller = await callerFor(member.headers);
    const started = performance.now();
    const { series } = await caller.metrics.series({ runId: bigRunId, keys: ["loss", "perf/throughput"], maxPoints: 500 });
    const ms = performance.now() - started;
    const loss = series.find((s) => s.key === "loss")!;
    expect(loss.total).toBe(100_000);
    // Buckets of 224 steps (7 rollup buckets of 32) aligned to multiples of 224: 447 of them.
    expect(loss.bucketSize).toBe(224);
    expect(loss.points).toHaveLength(447);
    // Bucket 0 holds steps 1..223 of value = step; the last one steps 99,904..100,000.
    expect(loss.points[0]).toMatchObject({ step: 112, min: 1, max: 223, mean: 112, n: 223 });
    expect(loss.points[1]).toMatchObject({ min: 224, max: 447, n: 224 });
    expect(loss.points[446]).toMatchObject({ min: 99_904, max: 100_000, n: 97 });
    const thr = series.find((s) => s.key === "perf/throughput")!;
    expect(thr.points).toHaveLength(447);
    expect(Math.max(...thr.points.map((p) => p.max))).toBeCloseTo(1, 3);
    console.log(`series: 2 keys × 100,000 points → 2 × 447 buckets in ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(3000);
  });

  it("reads the rollup, not the points: a 100,000-point chart touches a few thousand rows", async () => {
    const caller = await callerFor(member.headers);
    const series = () => caller.metrics.series({ runId: bigRunId, keys: ["loss", "perf/throughput"], maxPoints: 500 });
    const points = await rowsReadBy("metric_point", series);
    const rollup = await rowsReadBy("metric_rollup", series);
    // Four index probes for the bounds, the raw points of the partial buckets at both ends (< 2 × 32 per key).
    expect(points.total).toBeLessThan(2 * 64 + 8);
    expect(rollup.total).toBeLessThanOrEqual(2 * (100_000 / 32));
  });

  it("agrees with bucketing the raw points, zoomed across partial rollup buckets, and after points change", async () => {
    const caller = await callerFor(member.headers);
    const check = async (stepRange: { from: number; to: number } | null, maxPoints: number) => {
      const { series } = await caller.metrics.series({ runId: bigRunId, keys: ["perf/throughput"], maxPoints, stepRange });
      const s = series[0]!;
      const raw = await prisma.metricPoint.findMany({
        where: { runId: bigRunId, key: "perf/throughput", ...(stepRange ? { step: { gte: stepRange.from, lte: stepRange.to } } : {}) },
        select: { step: true, value: true },
      });
      const buckets = new Map<number, { n: number; sum: number; sumStep: number; min: number; max: number }>();
      for (const p of raw) {
        const b = Math.floor(p.step / s.bucketSize);
        const e = buckets.get(b) ?? { n: 0, sum: 0, sumStep: 0, min: Infinity, max: -Infinity };
        e.n++;
        e.sum += p.value;
        e.sumStep += p.step;
        e.min = Math.min(e.min, p.value);
        e.max = Math.max(e.max, p.value);
        buckets.set(b, e);
      }
      const expected = [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([, e]) => e);
      expect(s.bucketSize).toBeGreaterThanOrEqual(4);
      expect(s.points.length).toBeLessThanOrEqual(maxPoints);
      expect(s.points.map((p) => [p.n, p.step, p.min, p.max])).toEqual(expected.map((e) => [e.n, Math.round(e.sumStep / e.n), e.min, e.max]));
      s.points.forEach((p, i) => expect(p.mean).toBeCloseTo(expected[i]!.sum / expected[i]!.n, 9));
    };
    await check(null, 300);
    await check({ from: 1_001, to: 60_017 }, 250);
    await check({ from: 33, to: 9_000 }, 40);
    // The triggers keep the rollup true when points are added, changed and removed.
    await prisma.$executeRawUnsafe(
      `insert into metric_point ("runId", key, step, value, ts) select $1, 'perf/throughput', s, 5 + s, timestamp '2026-01-03' from generate_series(100001, 100300) s`,
      bigRunId,
    );
    await prisma.$executeRawUnsafe(`update metric_point set value = 42 where "runId" = $1 and key = 'perf/throughput' and step between 50000 and 50010`, bigRunId);
    await prisma.$executeRawUnsafe(`delete from metric_point where "runId" = $1 and key = 'perf/throughput' and step between 70000 and 70500`, bigRunId);
    // Raw SQL sends no step signal: the series read before the changes may still be shared for up to
    // MAX_AGE_MS (server/lib/live-reads.ts), so forget it, as a change made through this process does.
    clearSharedReads();
    await check(null, 300);
    await check({ from: 49_000, to: 71_000 }, 100);
    const { series } = await caller.metrics.series({ runId: bigRunId, keys: ["perf/throughput"], maxPoints: 300 });
    // sin() never reaches 42: the updated points show as their bucket's maximum.
    expect(series[0]!.points.filter((p) => p.max === 42)).toHaveLength(1);
  });

  it("zooms: a step range gives full resolution inside it", async () => {
    const caller = await callerFor(member.headers);
    const { series } = await caller.metrics.series({ runId: bigRunId, keys: ["loss"], maxPoints: 500, stepRange: { from: 1000, to: 1099 } });
    expect(series[0]!.bucketSize).toBe(1);
    expect(series[0]!.points.map((p) => p.step)).toEqual(Array.from({ length: 100 }, (_, i) => 1000 + i));
  });

  it("puts wall-clock seconds since the first point on the time axis", async () => {
    const caller = await callerFor(member.headers);
    const { series, originTs } = await caller.metrics.series({ runId, keys: ["reward/mean"], axis: "time", maxPoints: 100 });
    expect(originTs).toBe(Date.UTC(2026, 0, 1) + 10_000);
    expect(series[0]!.points.map((p) => p.x)).toEqual([0, 10, 20, 30]);
  });

  it("validates input with clear messages", async () => {
    const caller = await callerFor(member.headers);
    await expect(caller.metrics.series({ runId, keys: [], maxPoints: 10 })).rejects.toThrow(/at least one metric key/);
    await expect(caller.metrics.series({ runId, keys: ["a"], stepRange: { from: 5, to: 1 } })).rejects.toThrow(/must not exceed/);
    await expect(caller.metrics.keys({ runId: "nope" })).rejects.toThrow(/UUID/);
  });

  it("refuses callers without a session or token", async () => {
    const anon = await callerFor();
    for (const call of [() => anon.metrics.keys({ runId }), () => anon.metrics.series({ runId, keys: ["reward/mean"] })]) {
      const err = await call().catch((e) => e);
      expect(err).toBeInstanceOf(TRPCError);
      expect((err as TRPCError).code).toBe("UNAUTHORIZED");
    }
  });
});
