/**
 * The trajectory list reads only what a page needs (issue 25: the deep page went from 15 ms to 371–520 ms
 * p95 at 100 k trajectories). Every SQL statement the list and the detail send is recorded at the pg
 * driver and replayed under EXPLAIN (ANALYZE): the rows they read from `trajectory` must stay within a
 * small multiple of the page size, not grow with the table (Prisma's `_count` select joined a GROUP BY
 * over every trajectory of every run before the LIMIT).
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { callerFor, prisma, resetDatabase, signUp } from "../../../test/helpers";
import { rowsReadBy as rowsOf } from "../../../test/plan";
import { seedRun, type SeededRun } from "../../../test/seed";

type Caller = Awaited<ReturnType<typeof callerFor>>;
const rowsReadBy = (fn: () => Promise<unknown>) => rowsOf("trajectory", fn);
describe("trajectory list query plans", () => {
  let caller: Caller;
  let run: SeededRun;
  let parentId: string;

  beforeAll(async () => {
    await resetDatabase();
    const admin = await signUp();
    caller = await callerFor((await signUp("viewer")).headers);
    // Two runs, 6,000 trajectories in the table: a pass over it is far above any page's reads.
    run = await seedRun(prisma, { userId: admin.id, trajectories: 3000, steps: 30, turnsPerTrajectory: 1, instances: 20, evalEvery: 5, metricSeries: 0 });
    await seedRun(prisma, { userId: admin.id, trajectories: 3000, steps: 30, turnsPerTrajectory: 1, metricSeries: 0 });
    // Three private test-time attempts before one committed evaluation episode of the newest step.
    const parent = await prisma.trajectory.findFirstOrThrow({ where: { runId: run.runId, step: 30, phase: "eval" }, orderBy: [{ groupId: "asc" }, { rolloutIndex: "asc" }], select: { id: true, groupId: true, instanceId: true } });
    parentId = parent.id;
    for (let i = 0; i < 3; i++) {
      await prisma.trajectory.create({
        data: { runId: run.runId, step: 30, phase: "private", instanceId: parent.instanceId, groupId: parent.groupId, rolloutIndex: 100 + i, paradigm: "rehearse", reward: 0, outcome: "private", terminationReason: "checklist_complete", numTurns: 1, summary: {}, parentId },
      });
    }
    await prisma.$executeRawUnsafe("vacuum analyze trajectory");
  });

  afterEach(() => vi.restoreAllMocks());

  it("counts private attempts for the page's rows and lists no private attempt", async () => {
    const page = await caller.trajectories.list({ runId: run.runId, limit: 50 });
    expect(page.items.find((t) => t.id === parentId)?.privateAttempts).toBe(3);
    expect(page.items.filter((t) => t.id !== parentId).every((t) => t.privateAttempts === 0)).toBe(true);
    expect(page.items.some((t) => t.phase === "private")).toBe(false);
    const detail = await caller.trajectories.get({ id: parentId, turnsLimit: 10 });
    expect(detail.trajectory.privateAttempts).toBe(3);
  });

  it("a first page and a deep page read O(page) rows of trajectory, not the table", async () => {
    const first = await rowsReadBy(() => caller.trajectories.list({ runId: run.runId, limit: 50 }));
    expect(first.statements).toBeGreaterThan(0);
    expect(first.total).toBeLessThanOrEqual(3 * 51);

    const anchor = await prisma.trajectory.findFirstOrThrow({ where: { runId: run.runId, step: 12 }, select: { id: true } });
    const deep = await rowsReadBy(() => caller.trajectories.list({ runId: run.runId, limit: 50, cursor: anchor.id }));
    // Plus at most the anchor's own step (100 rows here), read from the (runId, step) index and filtered.
    expect(deep.total).toBeLessThanOrEqual(3 * 51 + 100);

    const byReward = await rowsReadBy(() => caller.trajectories.list({ runId: run.runId, limit: 50, sort: "reward_desc", cursor: anchor.id }));
    expect(byReward.total).toBeLessThanOrEqual(3 * 51 + 1);
  });

  it("a page by reward that starts at the far end of a run of equal rewards does not walk the run of ties", async () => {
    // Hundreds of trajectories share each reward; the anchor is the last of its ties in list order.
    const ties = await prisma.trajectory.count({ where: { runId: run.runId, reward: 0 } });
    expect(ties).toBeGreaterThan(300);
    const lowest = await prisma.trajectory.findFirstOrThrow({ where: { runId: run.runId, reward: 0 }, orderBy: { id: "asc" }, select: { id: true } });
    const highest = await prisma.trajectory.findFirstOrThrow({ where: { runId: run.runId, reward: 0 }, orderBy: { id: "desc" }, select: { id: true } });
    const desc = await rowsReadBy(() => caller.trajectories.list({ runId: run.runId, limit: 50, sort: "reward_desc", cursor: lowest.id }));
    expect(desc.total).toBeLessThanOrEqual(3 * 51 + 2);
    const asc = await rowsReadBy(() => caller.trajectories.list({ runId: run.runId, limit: 50, sort: "reward_asc", cursor: highest.id }));
    expect(asc.total).toBeLessThanOrEqual(3 * 51 + 2);
    const next = await rowsReadBy(() => caller.trajectories.neighbours({ runId: run.runId, sort: "reward_desc", id: lowest.id }));
    expect(next.total).toBeLessThanOrEqual(10);
  });

  it("the filter facets and the errored-episodes card read the run's tally, not its rows", async () => {
    const facets = await rowsReadBy(() => caller.trajectories.facets({ runId: run.runId }));
    // The instance list's skip scan (one probe per instance, 20 here) and four range probes.
    expect(facets.total).toBeLessThanOrEqual(2 * 20 + 10);
    const errored = await rowsReadBy(() => caller.trajectories.errored({ runId: run.runId }));
    expect(errored.total).toBeLessThanOrEqual(10);
  });

  it("the tally follows inserts, counted-column updates, deletes and a run's deletion", async () => {
    const truth = async (runId: string) =>
      prisma.$queryRawUnsafe<{ k: string; n: number }[]>(
        `select phase || '|' || outcome || '|' || "terminationReason" || '|' || coalesce("errorKind", '') as k, count(*)::int as n from trajectory where "runId" = $1 group by 1 order by 1`,
        runId,
      );
    const tally = async (runId: string) =>
      prisma.$queryRawUnsafe<{ k: string; n: number }[]>(
        `select phase || '|' || outcome || '|' || "terminationReason" || '|' || "errorKind" as k, n from trajectory_tally where "runId" = $1 order by 1`,
        runId,
      );
    expect(await tally(run.runId)).toEqual(await truth(run.runId));
    // Twelve failures become infrastructure errors (as the outcomes migration rewrites rows), five are deleted.
    await prisma.$executeRawUnsafe(
      `update trajectory set outcome = 'error', "errorKind" = 'user_simulator', "errorCause" = 'user simulator failed: seeded' where id in (select id from trajectory where "runId" = $1 and outcome = 'failure' and step = 7 order by id limit 12)`,
      run.runId,
    );
    await prisma.$executeRawUnsafe(`delete from trajectory where id in (select id from trajectory where "runId" = $1 and step = 8 order by id limit 5)`, run.runId);
    await prisma.$executeRawUnsafe(`update trajectory set "actTokens" = "actTokens" + 1 where "runId" = $1 and step = 9`, run.runId);
    expect(await tally(run.runId)).toEqual(await truth(run.runId));
    const errored = await caller.trajectories.errored({ runId: run.runId });
    expect(errored).toEqual({ episodes: 3000 - 5, errored: 12, byKind: [{ kind: "user_simulator", count: 12, example: "user simulator failed: seeded" }] });
    const facets = await caller.trajectories.facets({ runId: run.runId });
    expect(facets.total).toBe(3000 - 5);
    // A deleted run leaves no tally behind.
    const gone = await prisma.run.findFirstOrThrow({ where: { id: { not: run.runId } }, select: { id: true } });
    await prisma.run.delete({ where: { id: gone.id } });
    expect(await tally(gone.id)).toEqual([]);
  });

  it("one trajectory's header reads a handful of rows", async () => {
    const detail = await rowsReadBy(() => caller.trajectories.get({ id: parentId, turnsLimit: 10 }));
    expect(detail.total).toBeLessThanOrEqual(10);
  });
});
