import { beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { seedRunRows } from "../../../test/fixtures/run-rows";

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
    expect(loss.bucketSize).toBe(200);
    expect(loss.points).toHaveLength(500);
    // Bucket 0 holds steps 1..200 of value = step.
    expect(loss.points[0]).toMatchObject({ min: 1, max: 200, mean: 100.5, n: 200 });
    expect(loss.points[499]).toMatchObject({ min: 99_801, max: 100_000, n: 200 });
    const thr = series.find((s) => s.key === "perf/throughput")!;
    expect(thr.points).toHaveLength(500);
    expect(Math.max(...thr.points.map((p) => p.max))).toBeCloseTo(1, 3);
    console.log(`series: 2 keys × 100,000 points → 2 × 500 buckets in ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(3000);
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
