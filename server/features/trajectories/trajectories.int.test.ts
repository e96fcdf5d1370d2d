import { beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { seedRun, seedTrajectory, seedXssTrajectory, XSS, type SeededRun } from "../../../test/seed";

type Caller = Awaited<ReturnType<typeof callerFor>>;

describe("trajectories API against real Postgres", () => {
  let viewer: TestUser;
  let caller: Caller;
  let run: SeededRun;
  let other: SeededRun;
  let longId: string;

  beforeAll(async () => {
    await resetDatabase();
    const admin = await signUp();
    viewer = await signUp("viewer");
    caller = await callerFor(viewer.headers);
    // 10 steps × 24 trajectories (6 groups of K=4), every 5th step evaluated.
    run = await seedRun(prisma, { userId: admin.id, trajectories: 240, steps: 10, turnsPerTrajectory: 9, instances: 12, evalEvery: 5, metricSeries: 2 });
    other = await seedRun(prisma, { userId: admin.id, trajectories: 16, steps: 1, turnsPerTrajectory: 3, metricSeries: 0 });
    longId = await seedTrajectory(prisma, { runId: run.runId, step: 3, turns: 200 });
  });

  it("seeds the documented shape: turns, verdicts on act turns, rehearsed and real responses with fidelity", async () => {
    expect(run.turns).toBe(240 * 9);
    expect(run.verdicts).toBe(240 * 2);
    const tool = await prisma.turn.findFirst({ where: { trajectory: { runId: run.runId }, role: "rehearse" }, select: { rehearsedResponse: true, realResponse: true, fidelity: true, toolCalls: true, advantage: true } });
    expect(JSON.parse(tool!.rehearsedResponse!)).toBeTypeOf("object");
    expect(JSON.parse(tool!.realResponse!)).toBeTypeOf("object");
    expect(tool!.fidelity).toMatchObject({ exact: expect.any(Boolean), errorAgreement: expect.any(Boolean), score: expect.any(Number), outcome: expect.any(String), divergences: expect.any(Array) });
    expect(tool!.toolCalls).toMatchObject({ id: expect.any(String), name: expect.any(String), arguments: expect.any(String) });
    const verdicts = await prisma.checklistVerdict.findMany({ where: { trajectory: { runId: run.runId } }, select: { turnIndex: true, trajectoryId: true }, take: 50 });
    for (const v of verdicts) {
      const judged = await prisma.turn.findUnique({ where: { runId_trajectoryId_index: { runId: run.runId, trajectoryId: v.trajectoryId, index: v.turnIndex! } }, select: { role: true } });
      expect(judged?.role).toBe("act");
    }
  });

  it("lists newest step first, groups together, with keyset pages that cover every row exactly once", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<Caller["trajectories"]["list"]>> = await caller.trajectories.list({ runId: run.runId, limit: 37, cursor });
      seen.push(...page.items.map((t) => t.id));
      cursor = page.nextCursor;
      pages++;
      if (pages === 1) {
        expect(page.items[0]!.step).toBe(10);
        expect(page.items.slice(0, 4).map((t) => t.rolloutIndex)).toEqual([0, 1, 2, 3]);
        expect(new Set(page.items.slice(0, 4).map((t) => t.groupId)).size).toBe(1);
        expect(page.items[0]).not.toHaveProperty("summary");
      }
    } while (cursor);
    expect(seen.length).toBe(241);
    expect(new Set(seen).size).toBe(241);
    expect(pages).toBe(Math.ceil(241 / 37));
  });

  it("sorts by reward either way with keyset pages, and neighbours follow the same order", async () => {
    for (const sort of ["reward_asc", "reward_desc"] as const) {
      const rows: { id: string; reward: number }[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<Caller["trajectories"]["list"]>> = await caller.trajectories.list({ runId: run.runId, sort, limit: 50, cursor });
        rows.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      expect(rows.length).toBe(241);
      expect(new Set(rows.map((r) => r.id)).size).toBe(241);
      // reward_desc is reward_asc exactly reversed: ties by id descending (one index serves both).
      const ascending = [...rows].sort((a, b) => a.reward - b.reward || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const expected = sort === "reward_asc" ? ascending : ascending.reverse();
      expect(rows.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      const n = await caller.trajectories.neighbours({ runId: run.runId, sort, id: rows[100]!.id });
      expect([n.previous?.id, n.next?.id]).toEqual([rows[99]!.id, rows[101]!.id]);
    }
  });

  it("filters by step range, reward range, termination reason, outcome, instance and phase", async () => {
    const byStep = await caller.trajectories.list({ runId: run.runId, stepMin: 3, stepMax: 4, limit: 500 });
    expect(byStep.items.length).toBe(49);
    expect(byStep.items.every((t) => t.step >= 3 && t.step <= 4)).toBe(true);

    const byReward = await caller.trajectories.list({ runId: run.runId, rewardMin: 0.7, limit: 500 });
    expect(byReward.items.length).toBeGreaterThan(0);
    expect(byReward.items.every((t) => t.reward >= 0.7)).toBe(true);

    const reason = "act_parse_error:JSON_DECODE_ERROR";
    const byReason = await caller.trajectories.list({ runId: run.runId, terminationReason: reason, limit: 500 });
    expect(byReason.items.length).toBe(await prisma.trajectory.count({ where: { runId: run.runId, terminationReason: reason } }));
    // The policy's own parse error is a failure, never an (infrastructure) error.
    expect(byReason.items.every((t) => t.terminationReason === reason && t.outcome === "failure" && t.errorCause === null)).toBe(true);

    const success = await caller.trajectories.list({ runId: run.runId, outcome: "success", limit: 500 });
    expect(success.items.every((t) => t.reward === 1)).toBe(true);

    const inst = byStep.items[0]!.instanceId;
    const byInstance = await caller.trajectories.list({ runId: run.runId, instanceId: inst, limit: 500 });
    expect(byInstance.items.length).toBe(await prisma.trajectory.count({ where: { runId: run.runId, instanceId: inst } }));

    const evals = await caller.trajectories.list({ runId: run.runId, phase: "eval", limit: 500 });
    expect(evals.items.map((t) => t.step).sort()).toEqual([...Array(24).fill(10), ...Array(24).fill(5)].sort());

    const none = await caller.trajectories.list({ runId: other.runId, rewardMin: 2, limit: 10 });
    expect(none.items).toEqual([]);
  });

  it("rejects invalid filters with a message naming the field", async () => {
    const err = await caller.trajectories.list({ runId: "not-a-uuid" } as never).catch((e) => e);
    expect(err).toBeInstanceOf(TRPCError);
    expect((err as TRPCError).code).toBe("BAD_REQUEST");
    expect((err as TRPCError).message).toMatch(/run id must be a UUID/);
    const unauth = await (await callerFor()).trajectories.list({ runId: run.runId }).catch((e) => e);
    expect((unauth as TRPCError).code).toBe("UNAUTHORIZED");
  });

  it("returns the K rollouts of a group with rewards, group statistics and per-role advantages", async () => {
    const first = (await caller.trajectories.list({ runId: run.runId, stepMin: 7, stepMax: 7, limit: 4 })).items[0]!;
    const g = await caller.trajectories.group({ runId: run.runId, step: 7, groupId: first.groupId, phase: "train" });
    expect(g.members.map((m) => m.rolloutIndex)).toEqual([0, 1, 2, 3]);
    const mean = g.members.reduce((s, m) => s + m.reward, 0) / 4;
    expect(g.rewardMean).toBeCloseTo(mean, 9);
    for (const m of g.members) {
      expect(m.advantages.act!.count).toBe(4);
      // Seeded act advantage is reward − group mean (minus the invalid-action penalty on a broken output).
      const penalty = m.terminationReason.startsWith("act_parse_error") ? 0.1 : 0;
      expect(m.advantages.act!.max!).toBeCloseTo(m.reward - mean, 3);
      expect(m.advantages.act!.min!).toBeCloseTo(m.reward - mean - penalty, 3);
      expect(m.advantages.rehearse!.mean!).toBeCloseTo((m.reward - mean) * 0.9, 3);
      expect(m.lastTurn?.text.length).toBeGreaterThan(0);
    }
    const missing = await caller.trajectories.group({ runId: run.runId, step: 7, groupId: "nope", phase: "train" }).catch((e) => e);
    expect((missing as TRPCError).code).toBe("NOT_FOUND");
  });

  it("gets one trajectory with its turns paged and its verdicts; a 200-turn one stays cheap per page", async () => {
    const t0 = performance.now();
    const first = await caller.trajectories.get({ id: longId, turnsLimit: 60 });
    expect(first.trajectory.numTurns).toBe(200);
    expect(first.turns.map((t) => t.index)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(first.nextTurnsFrom).toBe(60);
    expect(first.verdicts.length).toBe(20);
    expect(first.trajectory.run.name).toMatch(/seeded run/);
    const collected = [...first.turns];
    let from: number | null = first.nextTurnsFrom;
    while (from != null) {
      const page: Awaited<ReturnType<Caller["trajectories"]["turns"]>> = await caller.trajectories.turns({ trajectoryId: longId, cursor: from, limit: 60 });
      collected.push(...page.turns);
      from = page.nextFrom;
    }
    expect(collected.map((t) => t.index)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(performance.now() - t0).toBeLessThan(2000);
    const act = collected.find((t) => t.role === "act" && t.toolCalls)!;
    expect(act.text).toMatch(/<think>[\s\S]*<\/think>[\s\S]*<tool_call>/);
    const missing = await caller.trajectories.get({ id: "00000000-0000-4000-8000-000000000000" }).catch((e) => e);
    expect((missing as TRPCError).code).toBe("NOT_FOUND");
  });

  it("returns the full raw JSON, turns and verdicts included", async () => {
    const raw = await caller.trajectories.raw({ id: longId });
    expect(raw.turns.length).toBe(200);
    expect(raw.verdicts.length).toBe(20);
    expect(raw.summary).toMatchObject({ dataSource: "tau2-retail" });
  });

  it("finds previous and next in list order, respecting the same filters", async () => {
    const page = await caller.trajectories.list({ runId: run.runId, limit: 10 });
    const mid = page.items[5]!;
    const n = await caller.trajectories.neighbours({ runId: run.runId, id: mid.id });
    expect(n.previous?.id).toBe(page.items[4]!.id);
    expect(n.next?.id).toBe(page.items[6]!.id);
    const head = await caller.trajectories.neighbours({ runId: run.runId, id: page.items[0]!.id });
    expect(head.previous).toBeNull();

    const filtered = await caller.trajectories.list({ runId: run.runId, outcome: "success", limit: 3 });
    const fn = await caller.trajectories.neighbours({ runId: run.runId, outcome: "success", id: filtered.items[1]!.id });
    expect(fn.previous?.id).toBe(filtered.items[0]!.id);
    expect(fn.next?.id).toBe(filtered.items[2]!.id);
    const wrongRun = await caller.trajectories.neighbours({ runId: other.runId, id: mid.id }).catch((e) => e);
    expect((wrongRun as TRPCError).code).toBe("NOT_FOUND");
  });

  it("returns facets for the filter dropdowns", async () => {
    const empty = await caller.trajectories.facets({ runId: "00000000-0000-4000-8000-000000000000" });
    expect(empty).toMatchObject({ total: 0, stepRange: null, rewardRange: null, terminationReasons: [], instances: [] });
    const f = await caller.trajectories.facets({ runId: run.runId });
    expect(f.total).toBe(241);
    expect(f.stepRange).toEqual({ min: 1, max: 10 });
    const reasons = await prisma.trajectory.groupBy({ by: ["terminationReason"], where: { runId: run.runId }, _count: true });
    expect(f.terminationReasons.map((r) => r.value).sort()).toEqual(reasons.map((r) => r.terminationReason).sort());
    expect(f.terminationReasons.reduce((s, r) => s + r.count, 0)).toBe(241);
    expect(f.rewardRange).toEqual({ min: 0, max: 1 });
    const instances = await prisma.trajectory.findMany({ where: { runId: run.runId }, distinct: ["instanceId"], select: { instanceId: true }, orderBy: { instanceId: "asc" } });
    expect(f.instances).toEqual(instances.map((i) => i.instanceId)); // 12 seeded + the long one
    expect(f.instances.length).toBe(13);
    expect(f.instancesTruncated).toBe(false);
    const capped = await caller.trajectories.facets({ runId: run.runId, maxInstances: 2 });
    expect(capped.instances).toEqual(f.instances.slice(0, 2));
    expect(capped.instancesTruncated).toBe(true);
  });

  it("returns model output verbatim (rendering decides safety, the API must not alter text)", async () => {
    const id = await seedXssTrajectory(prisma, { runId: other.runId });
    const t = await caller.trajectories.get({ id });
    expect(t.turns[1]!.text).toContain(XSS.script);
    expect(t.trajectory.terminationReason).toContain("<script>");
    expect(t.verdicts[0]!.question).toContain(XSS.link);
  });
});
