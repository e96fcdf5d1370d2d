import { beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { seedRunRows, trials } from "../../../test/fixtures/run-rows";
import { seedOutcomeRun, USER_SIMULATOR_FAILURE } from "../../../test/fixtures/outcome-episodes";
import { computeResults } from "../reports/service";

describe("compare API against real Postgres", () => {
  let member: TestUser;
  let a: string;
  let b: string;
  let trainOnly: string;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp();
    a = await seedRunRows(prisma, {
      name: "run A",
      createdById: member.id,
      config: { optim: { lr: 1e-6, clip: { low: 0.2 } }, rollout: { paradigm: "rehearse", k: 4 } },
      trajectories: [
        // An older eval that solved i3: only the LATEST eval counts.
        ...trials("eval", 10, "i3", "shop", 2, 2),
        ...trials("eval", 20, "i1", "shop", 4, 1),
        ...trials("eval", 20, "i2", "shop", 4, 0),
        ...trials("eval", 20, "i3", "shop", 4, 0),
        // Training trajectories at a later step do not count when an eval exists.
        ...trials("train", 25, "i2", "shop", 4, 4),
      ],
    });
    b = await seedRunRows(prisma, {
      name: "run B",
      createdById: member.id,
      config: { optim: { lr: 2e-6, clip: { low: 0.2 } }, rollout: { paradigm: "rehearse", k: 4 } },
      trajectories: [...trials("eval", 30, "i1", "shop", 4, 0), ...trials("eval", 30, "i2", "shop", 4, 3), ...trials("eval", 30, "i3", "shop", 4, 0)],
    });
    // No eval: the last train step counts.
    trainOnly = await seedRunRows(prisma, {
      name: "train only",
      createdById: member.id,
      config: { optim: { lr: 1e-6, clip: { low: 0.2 } }, rollout: { paradigm: "environment", k: 4 } },
      trajectories: [...trials("train", 1, "i1", "shop", 4, 4), ...trials("train", 2, "i1", "shop", 4, 0), ...trials("train", 2, "i4", "tau2", 4, 1)],
    });
  });

  it("pivots per-instance outcomes from each run's latest eval, disagreements first", async () => {
    const caller = await callerFor(member.headers);
    const res = await caller.compare.runs({ runIds: [a, b] });
    expect(res.runs.map((r) => [r.name, r.evaluated])).toEqual([
      ["run A", { runId: a, phase: "eval", step: 20 }],
      ["run B", { runId: b, phase: "eval", step: 30 }],
    ]);
    expect(res.outcomes.map((r) => [r.instanceId, r.differs, r.cells.map((c) => c && `${c.successes}/${c.n}`)])).toEqual([
      ["i1", true, ["1/4", "0/4"]],
      ["i2", true, ["0/4", "3/4"]],
      ["i3", false, ["0/4", "0/4"]],
    ]);
    expect(res.solvedCounts).toMatchObject([
      { solved: 1, evaluated: 3, uniquelySolved: 1, errored: 0, rate: 1 / 3, delta: null },
      { solved: 1, evaluated: 3, uniquelySolved: 1, errored: 0, rate: 1 / 3, delta: { estimate: 0 } },
    ]);
    // Every share carries its 95 % interval (Wilson), every Δ its own (Newcombe): 1/3 vs 1/3 spans zero widely.
    expect(res.solvedCounts[0]!.interval!.low).toBeCloseTo(0.0615, 3);
    expect(res.solvedCounts[0]!.interval!.high).toBeCloseTo(0.7923, 3);
    expect(res.solvedCounts[1]!.delta!.low).toBeLessThan(-0.4);
    expect(res.solvedCounts[1]!.delta!.high).toBeGreaterThan(0.4);
  });

  it("counts the benchmark's own successes through the real engine and persistence: a partial checklist reward is no success, errored episodes are left out and said", async () => {
    const { runId, ids } = await seedOutcomeRun(prisma, { userId: member.id, name: "three endings" });
    const caller = await callerFor(member.headers);

    // What the worker stored, as the API lists it.
    const { items } = await caller.trajectories.list({ runId, limit: 10 });
    const byId = new Map(items.map((t) => [t.id, t]));
    expect(byId.get(ids.complete)).toMatchObject({ outcome: "success", reward: 1, terminationReason: "checklist_complete", errorKind: null, errorCause: null });
    expect(byId.get(ids.partial)).toMatchObject({ outcome: "failure", reward: 0.25, terminationReason: "judge_required_failed", errorKind: null });
    expect(byId.get(ids.errored)).toMatchObject({ outcome: "error", terminationReason: "user_error", errorKind: "user_simulator", errorCause: `user simulator failed: ${USER_SIMULATOR_FAILURE}` });
    expect((await caller.trajectories.list({ runId, outcome: "success", limit: 10 })).items.map((t) => t.id)).toEqual([ids.complete]);
    expect(await caller.trajectories.errored({ runId })).toEqual({
      episodes: 3,
      errored: 1,
      byKind: [{ kind: "user_simulator", count: 1, example: `user simulator failed: ${USER_SIMULATOR_FAILURE}` }],
    });

    // The step's metrics and the run's key metrics count only the two episodes that ran.
    const points = Object.fromEntries((await prisma.metricPoint.findMany({ where: { runId }, select: { key: true, value: true } })).map((p) => [p.key, p.value]));
    expect(points).toMatchObject({ "val/avg@1": 0.5, "val/pass@1": 0.5, "val/won_avg@1": 1, "val/reward/mean": 0.625, "val/episodes/errored": 1, "val/episodes/errored/user_simulator": 1 });
    const row = await caller.runs.get({ id: runId });
    expect(row.latestMetrics).toMatchObject({ "val/reward/mean": 0.625, "val/episodes/errored": 1, "val/episodes/total": 3 });

    // Compare: the errored instance is neither solved nor unsolved.
    const cmp = await caller.compare.runs({ runIds: [runId] });
    expect(Object.fromEntries(cmp.outcomes.map((o) => [o.instanceId, o.cells[0]]))).toMatchObject({
      "outcomes/complete": { solved: true, successes: 1, n: 1, errored: 0 },
      "outcomes/partial": { solved: false, successes: 0, n: 1, errored: 0 },
      "outcomes/errored": { solved: false, successes: 0, n: 0, errored: 1 },
    });
    expect(cmp.solvedCounts[0]).toMatchObject({ solved: 1, evaluated: 2, errored: 1, rate: 0.5 });
    expect(cmp.errored[0]).toEqual({ runId, total: 1, byKind: [{ kind: "user_simulator", count: 1, example: `user simulator failed: ${USER_SIMULATOR_FAILURE}` }] });

    // A report's result table: over the episodes that ran, with what was left out and why.
    const results = await computeResults([runId]);
    expect(results.table.rows[0]!.cells.outcomes).toEqual({ avgAtK: 50, passAtK: 50, instances: 2, k: 1, episodes: 2, errored: 1 });
    expect(results.table.leftOut).toEqual([{ runId, runName: "three endings", errored: 1, byKind: { user_simulator: 1 }, example: `user simulator failed: ${USER_SIMULATOR_FAILURE}` }]);
  });

  it("falls back to the last training step for a run without evaluations", async () => {
    const caller = await callerFor(member.headers);
    const res = await caller.compare.runs({ runIds: [trainOnly, a] });
    expect(res.runs[0]!.evaluated).toEqual({ runId: trainOnly, phase: "train", step: 2 });
    const byId = Object.fromEntries(res.outcomes.map((r) => [r.instanceId, r.cells.map((c) => (c ? c.solved : null))]));
    expect(byId).toEqual({ i1: [false, true], i2: [null, false], i3: [null, false], i4: [true, null] });
    expect(res.outcomes.find((r) => r.instanceId === "i4")!.dataSource).toBe("tau2");
  });

  it("shows only the config paths that differ", async () => {
    const caller = await callerFor(member.headers);
    const res = await caller.compare.runs({ runIds: [a, b, trainOnly] });
    expect(res.configDiff).toEqual([
      { path: "optim.lr", values: [1e-6, 2e-6, 1e-6] },
      { path: "rollout.paradigm", values: ["rehearse", "rehearse", "environment"] },
    ]);
    expect(JSON.stringify(res.runs)).not.toContain('"config"');
  });

  it("names unknown runs and refuses anonymous callers", async () => {
    const caller = await callerFor(member.headers);
    const missing = "00000000-0000-4000-8000-000000000000";
    await expect(caller.compare.runs({ runIds: [a, missing] })).rejects.toThrow(missing);
    const err = await (await callerFor()).compare.runs({ runIds: [a] }).catch((e) => e);
    expect((err as TRPCError).code).toBe("UNAUTHORIZED");
  });
});
