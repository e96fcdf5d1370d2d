/**
 * Studies against real Postgres: one request launches every run of a grid × seeds in ONE transaction (or
 * none), refusals name their field (a setting that does not exist, a value the schema refuses, a value
 * the launch check refuses, too many runs), and the study's groups, charts (mean ± std across seeds) and
 * per-benchmark table read what the runs committed — their own evaluations, their evaluation suites', and
 * an evaluation run of one of their checkpoints. The worker side is cli/studies.int.test.ts.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import type { Prisma } from "@prisma/client";
import type { RunConfigInput } from "../../../contracts/run-config";
import { registerCheckedNode } from "../../../test/fixtures/doctor-report";
import { tinyTraining } from "../../../test/fixtures/tiny-training";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";

type Caller = Awaited<ReturnType<typeof callerFor>>;

/** A tiny training config whose cells may switch paradigm: no shadow execution in the base. */
const base = (): RunConfigInput => {
  const c = tinyTraining({ steps: 2, evalEvery: 2 });
  return { ...c, rollout: { ...c.rollout, shadowExecution: false }, schedule: { ...c.schedule, evalSuites: [{ name: "shop-test", dataset: "builtin:shop", limit: 2 }] } };
};

async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, "the study was launched").toBeInstanceOf(TRPCError);
  const e = err as TRPCError & { cause?: { fieldErrors?: { path: string; message: string }[] } };
  expect(e.code).toBe("BAD_REQUEST");
  return { message: e.message, fieldErrors: e.cause?.fieldErrors ?? [] };
}

describe("studies", () => {
  let member: TestUser;
  let caller: Caller;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    caller = await callerFor(member.headers);
    await registerCheckedNode(prisma, "embedded", ["tiny-gpt", "tiny-gpt-2"], { facts: { contextLength: 1024, renderer: "tiny-gpt", profile: "envace-embedded" } });
  });
  afterEach(() => {
    delete process.env.ENVACE_MAX_STUDY_RUNS;
  });

  it("launches 2 paradigms × 2 seeds as four queued runs with their jobs, in one study", async () => {
    const study = await caller.studies.create({ name: "paradigms", tags: ["ablation"], config: base(), grid: [{ setting: "rollout.paradigm", values: ["rehearse", "environment"] }], seeds: 2 });
    expect(study.runs.map((r) => r.name)).toEqual([
      "paradigms · paradigm=rehearse · seed 7",
      "paradigms · paradigm=rehearse · seed 8",
      "paradigms · paradigm=environment · seed 7",
      "paradigms · paradigm=environment · seed 8",
    ]);
    const runs = await prisma.run.findMany({ where: { studyId: study.id }, orderBy: { name: "asc" }, select: { id: true, status: true, paradigm: true, tags: true, config: true, studyCell: true } });
    expect(runs).toHaveLength(4);
    for (const run of runs) {
      const config = run.config as { rollout: { paradigm: string }; data: { seed: number }; schedule: { evalSuites: unknown[] } };
      expect(run.status).toBe("queued");
      expect(run.tags).toEqual(["ablation", "study"]);
      expect(run.paradigm).toBe(config.rollout.paradigm);
      expect(run.studyCell).toEqual({ values: { "rollout.paradigm": config.rollout.paradigm }, seed: config.data.seed });
      expect(config.schedule.evalSuites).toHaveLength(1);
    }
    const jobCount = await prisma.$queryRawUnsafe<{ n: number }[]>(`select count(*)::int as n from pgboss.job where data->>'runId' = any($1::text[])`, runs.map((r) => r.id));
    expect(jobCount[0]!.n).toBe(4);

    const got = await caller.studies.get({ id: study.id });
    expect(got.grid).toEqual([{ setting: "rollout.paradigm", values: ["rehearse", "environment"] }]);
    expect(got.seeds).toEqual([7, 8]);
    expect(got.groups.map((g) => [g.label, g.runs.map((r) => r.seed)])).toEqual([
      ["paradigm=rehearse", [7, 8]],
      ["paradigm=environment", [7, 8]],
    ]);
    expect(got.runs.every((r) => r.cell !== null)).toBe(true);
    expect((await caller.runs.get({ id: runs[0]!.id })).studyId).toBe(study.id);
    const listed = await caller.studies.list({ limit: 10 });
    expect(listed.items.find((s) => s.id === study.id)).toMatchObject({ name: "paradigms", runs: { queued: 4 } });
  });

  it("refuses a grid over a setting that does not exist, values the schema refuses, and too many runs — naming the field, launching nothing", async () => {
    const before = { studies: await prisma.study.count(), runs: await prisma.run.count() };
    let r = await refusal(caller.studies.create({ name: "x", config: base(), grid: [{ setting: "rollout.paradigms", values: ["rehearse"] }, { setting: "data.seed", values: [1, 2] }], seeds: 2 }));
    expect(r.fieldErrors).toEqual([
      { path: "grid.0.setting", message: "no such run setting (did you mean rollout.paradigm?)" },
      { path: "grid.1.setting", message: "seeds are the study's own axis: give seeds instead" },
    ]);
    expect(r.message).toBe("cannot launch the study: grid.0.setting: no such run setting (did you mean rollout.paradigm?) (and 1 more)");

    // A value the schema refuses is named on the value; a combination the base does not allow, too.
    const shadowed = { ...base(), rollout: { ...base().rollout, shadowExecution: true } };
    r = await refusal(caller.studies.create({ name: "x", config: shadowed, grid: [{ setting: "rollout.paradigm", values: ["rehearse", "environment", "imagined"] }], seeds: 1 }));
    expect(r.fieldErrors).toEqual([
      { path: "grid.0.values.1", message: "rollout.shadowExecution: shadow execution only applies to the rehearse paradigm" },
      { path: "grid.0.values.2", message: "rollout.paradigm: Invalid enum value. Expected 'rehearse' | 'simulator' | 'environment', received 'imagined'" },
    ]);
    r = await refusal(caller.studies.create({ name: "x", config: base(), grid: [{ setting: "optim.lr", values: [1e-4, -1, 1e-4] }], seeds: 1 }));
    expect(r.fieldErrors).toEqual([{ path: "grid.0.values.2", message: "0.0001 is listed twice" }]);

    // The launch check on each cell: a model the node does not serve (the doctor never checked it).
    r = await refusal(caller.studies.create({ name: "x", config: base(), grid: [{ setting: "policy.node", values: ["embedded", "gpu-9"] }], seeds: 2 }));
    expect(r.fieldErrors).toEqual([{ path: "grid.0.values.1", message: 'policy.node: node "gpu-9" (policy) is not registered; add it on the Nodes page' }]);
    r = await refusal(caller.studies.create({ name: "x", config: { ...base(), data: { dataset: "dataset:nope" } }, grid: [{ setting: "rollout.paradigm", values: ["rehearse", "simulator"] }], seeds: 1 }));
    expect(r.fieldErrors).toContainEqual({ path: "config.data.dataset", message: 'no imported dataset "nope" (import it on the Datasets page, then refer to it by id or name)' });
    expect(r.fieldErrors).toContainEqual({ path: "grid.0.values.1", message: "rollout.simulator: the simulator paradigm needs a simulator node and model" });

    // The server's limit (ENVACE_MAX_STUDY_RUNS), on the grid or, without one, on the seeds.
    process.env.ENVACE_MAX_STUDY_RUNS = "6";
    r = await refusal(caller.studies.create({ name: "x", config: base(), grid: [{ setting: "rollout.paradigm", values: ["rehearse", "environment"] }, { setting: "policy.model", values: ["tiny-gpt", "tiny-gpt-2"] }], seeds: 2 }));
    expect(r.fieldErrors).toEqual([{ path: "grid", message: "2 × 2 × 2 seeds is 8 runs; a study may launch at most 6 (the server's ENVACE_MAX_STUDY_RUNS)" }]);
    r = await refusal(caller.studies.create({ name: "x", config: base(), seeds: 7 }));
    expect(r.fieldErrors).toEqual([{ path: "seeds", message: "7 seeds is 7 runs; a study may launch at most 6 (the server's ENVACE_MAX_STUDY_RUNS)" }]);
    r = await refusal(caller.studies.create({ name: "x", config: base(), seeds: 1 }));
    expect(r.fieldErrors).toEqual([{ path: "seeds", message: "a study compares runs: give a grid, or at least 2 seeds" }]);
    r = await refusal(caller.studies.create({ name: "x", config: { ...base(), schedule: { steps: 2, evalSuites: [{ name: "a", dataset: "builtin:shop" }] } }, seeds: 2 }));
    expect(r.fieldErrors).toEqual([{ path: "config.schedule.evalSuites.0.instanceIds", message: "name the suite's tasks: instanceIds, or limit (a seeded sample of that many tasks of the split)" }]);

    expect({ studies: await prisma.study.count(), runs: await prisma.run.count() }).toEqual(before);
  });

  it("writes all of a study or nothing: a run that cannot be inserted takes the study and the other runs with it", async () => {
    const before = { studies: await prisma.study.count(), runs: await prisma.run.count() };
    // The third run's insert fails inside the transaction.
    await prisma.$executeRawUnsafe(`create function refuse_third() returns trigger as $$ begin if new.name like '%environment · seed 7' then raise exception 'no room'; end if; return new; end $$ language plpgsql`);
    await prisma.$executeRawUnsafe(`create trigger refuse_third before insert on "run" for each row execute function refuse_third()`);
    try {
      await expect(caller.studies.create({ name: "atomic", config: base(), grid: [{ setting: "rollout.paradigm", values: ["rehearse", "environment"] }], seeds: 2 })).rejects.toThrow();
    } finally {
      await prisma.$executeRawUnsafe(`drop trigger refuse_third on "run"`);
      await prisma.$executeRawUnsafe(`drop function refuse_third()`);
    }
    expect({ studies: await prisma.study.count(), runs: await prisma.run.count() }).toEqual(before);
    expect(await prisma.run.count({ where: { name: { startsWith: "atomic" } } })).toBe(0);
  });

  it("charts each group as mean ± std across its seeds, and tables each benchmark per group at the latest or a chosen step", async () => {
    const study = await caller.studies.create({ name: "table", config: base(), grid: [{ setting: "rollout.paradigm", values: ["rehearse", "environment"] }], seeds: 2 });
    const got = await caller.studies.get({ id: study.id });
    const [rehearse, environment] = got.groups.map((g) => g.runs.map((r) => r.id)) as [string[], string[]];
    // What the worker commits for each run: the own evaluation and the suite's at steps 1 and 2, and the training reward.
    const commit = async (runId: string, kind: string, step: number, reward: number, success: number) => {
      await prisma.step.create({ data: { runId, kind, index: step, startedAt: new Date(), finishedAt: new Date(), durationMs: 1, metrics: { "reward/mean": reward, "val/avg@1": success, "val/pass@1": success } as Prisma.InputJsonValue } });
    };
    const values: [string, number, number][] = [
      [rehearse[0]!, 0.2, 0.6],
      [rehearse[1]!, 0.4, 0.8],
      [environment[0]!, 0.1, 0.3],
      [environment[1]!, 0.1, 0.5],
    ];
    for (const [runId, reward, success] of values) {
      for (const step of [1, 2]) {
        await commit(runId, "eval", step, reward / step, success);
        await commit(runId, "suite:shop-test", step, reward * step, success / step);
        await prisma.metricPoint.create({ data: { runId, key: "reward/mean", step, value: reward * step } });
      }
    }

    const latest = await caller.studies.table({ id: study.id, step: "latest" });
    expect(latest.groups.map((g) => [g.label, g.runs])).toEqual([["paradigm=rehearse", 2], ["paradigm=environment", 2]]);
    expect(latest.steps).toEqual([1, 2]);
    expect(latest.rows.map((r) => r.label)).toEqual(["builtin:shop", "shop-test (builtin:shop)"]);
    const suite = latest.rows[1]!;
    expect(suite.cells[0]).toMatchObject({ n: 2, runs: 2, reward: { mean: expect.closeTo(0.6, 9), std: expect.closeTo(Math.SQRT2 * 0.2, 9), n: 2 }, success: { mean: expect.closeTo(0.35, 9), n: 2 } });
    expect(suite.cells[1]).toMatchObject({ n: 2, reward: { mean: expect.closeTo(0.2, 9), std: 0 }, success: { mean: expect.closeTo(0.2, 9) } });
    const atStep1 = await caller.studies.table({ id: study.id, step: 1 });
    expect(atStep1.rows[1]!.cells[0]!.reward).toMatchObject({ mean: expect.closeTo(0.3, 9), min: 0.2, max: 0.4 });
    expect(atStep1.rows[0]!.cells[1]!.success).toMatchObject({ mean: expect.closeTo(0.4, 9), n: 2 });
    expect((await caller.studies.table({ id: study.id, step: 9 })).rows.every((r) => r.cells.every((c) => c.n === 0 && c.reward === null))).toBe(true);

    // An evaluation run of a run's checkpoint counts at that step, before the run's own evaluation of the same benchmark.
    const checkpoint = await prisma.checkpoint.create({ data: { runId: rehearse[0]!, step: 2, nodeName: "embedded", statePath: "s", samplerPath: "p" }, select: { id: true } });
    // As runs.create stores it: the checkpoint pinned (run id, step number) and its lineage recorded.
    const evalRun = await prisma.run.create({
      data: {
        name: "eval of checkpoint", kind: "eval", status: "succeeded", configVersion: 1, paradigm: "environment", policyNode: "embedded", totalSteps: 1, createdById: member.id,
        config: { kind: "eval", data: { dataset: "builtin:shop", split: "test" }, policy: { node: "embedded", model: "tiny-gpt", checkpoint: { run: rehearse[0]!, step: 2 } } },
        evaluatedCheckpointId: checkpoint.id,
      },
      select: { id: true },
    });
    await commit(evalRun.id, "eval", 1, 0.9, 1);
    const linked = await caller.studies.table({ id: study.id, step: 2 });
    expect(linked.rows[0]!.cells[0]).toMatchObject({ n: 2, reward: { mean: expect.closeTo((0.9 + 0.2) / 2, 9) }, steps: { [rehearse[0]!]: 2, [rehearse[1]!]: 2 } });

    const charts = await caller.studies.series({ id: study.id, keys: ["reward/mean"], maxPoints: 300 });
    expect(charts.bucketSize).toBe(1);
    expect(charts.groups.map((g) => [g.label, g.runs])).toEqual([["paradigm=rehearse", 2], ["paradigm=environment", 2]]);
    const band = charts.groups[0]!.series[0]!.points;
    expect(band.map((p) => [p.step, p.n])).toEqual([[1, 2], [2, 2]]);
    expect(band[1]).toMatchObject({ mean: expect.closeTo(0.6, 9), std: expect.closeTo(Math.SQRT2 * 0.2, 9), min: expect.closeTo(0.4, 9), max: expect.closeTo(0.8, 9) });
    expect(charts.groups[1]!.series[0]!.points[0]).toMatchObject({ mean: expect.closeTo(0.1, 9), std: 0 });
    expect(await caller.studies.keys({ id: study.id })).toEqual(["reward/mean"]);
    // Downsampled: buckets of two steps; a bucket counts the runs that have a value in it.
    for (const step of [3, 4]) await prisma.metricPoint.create({ data: { runId: rehearse[0]!, key: "reward/mean", step, value: 1 } });
    const coarse = (await caller.studies.series({ id: study.id, keys: ["reward/mean"], maxPoints: 2 })).groups[0]!.series[0]!.points;
    expect(coarse.map((p) => [p.step, p.n])).toEqual([[2, 2], [4, 1]]);
    // Run 0's steps 1–2 average (0.2 + 0.4) / 2, run 1's (0.4 + 0.8) / 2.
    expect(coarse[0]!.mean).toBeCloseTo((0.3 + 0.6) / 2, 9);
  });

  it("is read by any signed-in role and launched only by members", async () => {
    const viewer = await callerFor((await signUp("viewer")).headers);
    await expect(viewer.studies.create({ name: "v", config: base(), seeds: 2 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await viewer.studies.list({ limit: 5 })).items.length).toBeGreaterThan(0);
    await expect(viewer.studies.get({ id: "00000000-0000-4000-8000-000000000000" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
