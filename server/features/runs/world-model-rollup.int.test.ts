/**
 * The run-level world-model rollups (migration 20261203300000: fidelity_tool_total, fidelity_step_rollup,
 * fidelity_divergence_total) against the direct aggregates of fidelity_stat / fidelity_divergence after
 * inserts, a resumed step's replace, updates and deletes; and the view's answer against the per-step
 * queries it made before the rollups (same data for a short run, the same sums bucketed for a long one).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@prisma/client";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { seedRun } from "../../../test/seed";
import { rollupFidelity } from "../../../worker/runner/fidelity-rollup";
import { commitStep } from "../../../worker/runner/persist";
import { syntheticStep } from "../../../bench/persist";
import { bucketPlan } from "../metrics/rollup";

type Caller = Awaited<ReturnType<typeof callerFor>>;
const WIDTHS = [4, 32, 256, 2048];

/** Rows of the rollups and of the direct aggregates, as comparable strings (sums of floats rounded). */
async function rollupsAndDirect(runId: string) {
  const rows = async (sql: Prisma.Sql) => (await prisma.$queryRaw<{ r: string }[]>(sql)).map((x) => x.r).sort();
  const tool = await rows(Prisma.sql`
    select concat_ws('|', phase, tool, comparisons, round("scoreSum"::numeric, 9), exact, "errorAgree", invalid, "bothErrors") as r
    from fidelity_tool_total where "runId" = ${runId}`);
  const toolDirect = await rows(Prisma.sql`
    select concat_ws('|', phase, tool, sum(comparisons), round(sum("scoreSum")::numeric, 9), sum(exact), sum("errorAgree"), sum(invalid), sum("bothErrors")) as r
    from fidelity_stat where "runId" = ${runId} group by phase, tool`);
  const step = await rows(Prisma.sql`
    select concat_ws('|', phase, width, bucket, "minStep", "maxStep", comparisons, round("scoreSum"::numeric, 9), exact, "errorAgree", invalid, "bothErrors") as r
    from fidelity_step_rollup where "runId" = ${runId}`);
  const stepDirect = await rows(Prisma.sql`
    select concat_ws('|', phase, w, floor(step::float8 / w)::int, min(step), max(step), sum(comparisons), round(sum("scoreSum")::numeric, 9), sum(exact), sum("errorAgree"), sum(invalid), sum("bothErrors")) as r
    from fidelity_stat cross join unnest(${WIDTHS}::int[]) as w where "runId" = ${runId} group by phase, w, floor(step::float8 / w)::int`);
  const div = await rows(Prisma.sql`
    select concat_ws('|', phase, tool, path, coalesce(rehearsed, '<null>'), coalesce("real", '<null>'), count, "lastStep") as r
    from fidelity_divergence_total where "runId" = ${runId}`);
  const divDirect = await rows(Prisma.sql`
    select concat_ws('|', phase, tool, path, coalesce(rehearsed, '<null>'), coalesce("real", '<null>'), sum(count), max(step)) as r
    from fidelity_divergence where "runId" = ${runId} group by phase, tool, path, rehearsed, "real"`);
  return { tool, toolDirect, step, stepDirect, div, divDirect };
}

async function expectRollupsExact(runId: string) {
  const r = await rollupsAndDirect(runId);
  expect(r.tool).toEqual(r.toolDirect);
  expect(r.step).toEqual(r.stepDirect);
  expect(r.div).toEqual(r.divDirect);
  return r;
}

interface OldStep {
  step: number;
  phase: string;
  n: bigint;
  score: number | null;
  exact: number | null;
}

/** The per-step query of the view before the rollups: one row per (step, phase), straight from fidelity_stat. */
async function oldSteps(runId: string): Promise<OldStep[]> {
  return prisma.$queryRaw<OldStep[]>`
    select step, phase, sum(comparisons)::bigint as n,
      (sum("scoreSum") / nullif(sum(comparisons), 0))::float8 as score,
      (sum(exact)::float8 / nullif(sum(comparisons), 0)) as exact
    from fidelity_stat where "runId" = ${runId} group by step, phase order by step, phase`;
}

/** The divergence list of the view before the rollups (every fidelity_divergence row grouped). */
async function oldDivergences(runId: string, limit: number) {
  return prisma.$queryRaw<{ tool: string; path: string; rehearsed: string | null; real: string | null; n: bigint }[]>`
    select tool, path, rehearsed, "real", sum(count)::bigint as n from fidelity_divergence where "runId" = ${runId}
    group by tool, path, rehearsed, "real" order by n desc, tool, path, rehearsed nulls first, "real" nulls first limit ${limit}`;
}

describe("world-model rollups against real Postgres", () => {
  let member: TestUser;
  let caller: Caller;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp();
    caller = await callerFor(member.headers);
  });

  it("equal the direct aggregates after inserts, a replaced step, an update and deletes", async () => {
    const run = await seedRun(prisma, { userId: member.id, domain: "shop", trajectories: 192, steps: 12, turnsPerTrajectory: 9, evalEvery: 4, metricSeries: 0 });
    const before = await expectRollupsExact(run.runId);
    expect(before.tool.length).toBeGreaterThan(1);
    expect(before.div.length).toBeGreaterThan(1);

    // A resumed step replaced as worker/runner/persist.ts does: its rows deleted, then the step rolled up again.
    await prisma.$transaction(async (tx) => {
      await tx.fidelityStat.deleteMany({ where: { runId: run.runId, phase: "train", step: 5 } });
      await tx.fidelityDivergence.deleteMany({ where: { runId: run.runId, phase: "train", step: 5 } });
      await rollupFidelity(tx, run.runId, "train", 5);
    });
    expect(await rollupsAndDirect(run.runId)).toEqual(before);

    // The step's rows gone for good (a deleted step): its tool totals, buckets and divergence kinds shrink.
    await prisma.fidelityStat.deleteMany({ where: { runId: run.runId, phase: "train", step: { in: [11, 10] } } });
    await prisma.fidelityDivergence.deleteMany({ where: { runId: run.runId, phase: "train", step: { in: [11, 10] } } });
    const afterDelete = await expectRollupsExact(run.runId);
    expect(afterDelete.step).not.toEqual(before.step);
    expect(afterDelete.div).not.toEqual(before.div);

    // Updates move values between keys (a renamed tool, a moved divergence, a changed step).
    await prisma.$executeRaw`update fidelity_stat set tool = 'renamed_tool', "scoreSum" = "scoreSum" + 0.5 where "runId" = ${run.runId} and step = 2
      and tool = (select min(tool) from fidelity_stat where "runId" = ${run.runId} and step = 2)`;
    await prisma.$executeRaw`update fidelity_stat set step = 40 where "runId" = ${run.runId} and step = 3`;
    await prisma.$executeRaw`update fidelity_divergence set rehearsed = null, count = count + 7 where "runId" = ${run.runId} and step = 1`;
    await prisma.$executeRaw`update fidelity_divergence set step = 40 where "runId" = ${run.runId} and step = 6`;
    const afterUpdate = await expectRollupsExact(run.runId);
    expect(afterUpdate.tool.some((r) => r.includes("|renamed_tool|"))).toBe(true);
    expect(afterUpdate.div.some((r) => r.includes("|<null>|"))).toBe(true);

    // Deleting the run (cascade) leaves no rollup rows behind.
    await prisma.run.delete({ where: { id: run.runId } });
    expect(await rollupsAndDirect(run.runId)).toEqual({ tool: [], toolDirect: [], step: [], stepDirect: [], div: [], divDirect: [] });
  });

  it("stay exact through the worker's own commits and a resumed step's replace (worker/runner/persist.ts)", async () => {
    const run = await prisma.run.create({
      data: { name: "rollup-replay", kind: "train", status: "running", workerId: "w1", config: {}, configVersion: 1, paradigm: "rehearse", policyNode: "embedded", tags: [], totalSteps: 4, createdById: member.id },
    });
    for (let step = 1; step <= 4; step++) {
      await commitStep(prisma, { runId: run.id, workerId: "w1", result: syntheticStep(step, 60, 2, 2), phase: "train", startedAt: new Date() });
    }
    const first = await expectRollupsExact(run.id);
    expect(first.tool.length).toBeGreaterThan(0);
    expect(first.div.length).toBeGreaterThan(0);
    // The replay commits a different result for step 3 (more turns): replaced, never added to.
    await commitStep(prisma, { runId: run.id, workerId: "w1", result: syntheticStep(3, 120, 3, 2), phase: "train", startedAt: new Date(), replace: true });
    const replaced = await expectRollupsExact(run.id);
    expect(replaced.tool).not.toEqual(first.tool);
  });

  it("a short run: the view shows the same steps, totals and divergences as the per-row queries did", async () => {
    const run = await seedRun(prisma, { userId: member.id, domain: "shop", trajectories: 256, steps: 16, turnsPerTrajectory: 9, evalEvery: 4, metricSeries: 0 });
    const wm = await caller.runs.worldModel({ runId: run.runId, limit: 200 });
    const old = await oldSteps(run.runId);
    expect(wm.steps.map((s) => [s.step, s.toStep, s.phase, s.comparisons])).toEqual(old.map((o) => [o.step, o.step, o.phase, Number(o.n)]));
    wm.steps.forEach((s, i) => {
      expect(s.meanScore).toBeCloseTo(old[i]!.score ?? 0, 12);
      expect(s.exactRate).toBeCloseTo(old[i]!.exact ?? 0, 12);
    });
    const div = await oldDivergences(run.runId, 200);
    expect(wm.divergences.map((d) => [d.tool, d.path, d.rehearsed, d.real, d.count])).toEqual(div.map((d) => [d.tool, d.path, d.rehearsed, d.real, Number(d.n)]));
    const kinds = await prisma.$queryRaw<{ n: bigint }[]>`select count(*)::bigint as n from (select distinct tool, path, rehearsed, "real" from fidelity_divergence where "runId" = ${run.runId}) k`;
    expect(wm.divergenceKinds).toBe(Number(kinds[0]!.n));
    const total = await prisma.$queryRaw<{ n: bigint; score: number }[]>`
      select sum(comparisons)::bigint as n, (sum("scoreSum") / sum(comparisons))::float8 as score from fidelity_stat where "runId" = ${run.runId}`;
    expect(wm.overall!.comparisons).toBe(Number(total[0]!.n));
    expect(wm.overall!.meanScore).toBeCloseTo(total[0]!.score, 12);
    // Examples come from the newest step showing each divergence.
    for (const d of wm.divergences) {
      const last = await prisma.fidelityDivergence.aggregate({ where: { runId: run.runId, tool: d.tool, path: d.path, rehearsed: d.rehearsed, real: d.real }, _max: { step: true } });
      expect(d.examples.every((e) => e.step === last._max.step)).toBe(true);
    }
    const train = await caller.runs.worldModel({ runId: run.runId, phase: "eval" });
    expect(train.steps.map((s) => s.step)).toEqual(old.filter((o) => o.phase === "eval").map((o) => o.step));
  });

  it("a run longer than the chart: each phase in aligned buckets whose sums are the per-step rows'", async () => {
    const run = await seedRun(prisma, { userId: member.id, domain: "shop", trajectories: 1200, steps: 150, turnsPerTrajectory: 5, evalEvery: 10, metricSeries: 0 });
    // A step replaced after the fact keeps the buckets right (the rollup's recompute path).
    await prisma.$transaction(async (tx) => {
      await tx.fidelityStat.deleteMany({ where: { runId: run.runId, phase: "train", step: 77 } });
      await tx.fidelityDivergence.deleteMany({ where: { runId: run.runId, phase: "train", step: 77 } });
      await rollupFidelity(tx, run.runId, "train", 77);
    });
    const maxSteps = 12;
    const wm = await caller.runs.worldModel({ runId: run.runId, maxSteps });
    const old = await oldSteps(run.runId);
    for (const phase of ["train", "eval"]) {
      const rows = old.filter((o) => o.phase === phase);
      const lo = rows[0]!.step;
      const hi = rows[rows.length - 1]!.step;
      const plan = bucketPlan(lo, hi, maxSteps);
      const points = wm.steps.filter((s) => s.phase === phase);
      expect(points.length).toBeLessThanOrEqual(maxSteps);
      // The expected buckets, grouped from the per-step rows by the same plan.
      const byBucket = new Map<number, { step: number; to: number; n: number; score: number }>();
      for (const o of rows) {
        const b = plan.mode === "raw" ? Math.floor((o.step - lo) / plan.width) : Math.floor(o.step / plan.width);
        const cur = byBucket.get(b) ?? { step: o.step, to: o.step, n: 0, score: 0 };
        cur.to = o.step;
        cur.n += Number(o.n);
        cur.score += (o.score ?? 0) * Number(o.n);
        byBucket.set(b, cur);
      }
      const expected = [...byBucket.values()];
      expect(points.map((p) => [p.step, p.toStep, p.comparisons])).toEqual(expected.map((e) => [e.step, e.to, e.n]));
      points.forEach((p, i) => expect(p.meanScore).toBeCloseTo(expected[i]!.score / expected[i]!.n, 9));
    }
    // The train phase (149 steps in ≤ 12 points) reads the rollup; the sum over its points is the phase's.
    expect(bucketPlan(1, 149, maxSteps).mode).toBe("rollup");
    const trainN = old.filter((o) => o.phase === "train").reduce((n, o) => n + Number(o.n), 0);
    expect(wm.steps.filter((s) => s.phase === "train").reduce((n, s) => n + s.comparisons, 0)).toBe(trainN);
    // The default width (300) draws this run one point per step, as before.
    const full = await caller.runs.worldModel({ runId: run.runId });
    expect(full.steps.map((s) => [s.step, s.phase])).toEqual(old.map((o) => [o.step, o.phase]));
  });
});
