/**
 * Crash recovery of every part of a step: a real worker process is killed with SIGKILL while it
 * evaluates (after the step's training committed), another worker resumes the run against the real
 * embedded node, and the evaluation exists exactly once — at a checkpoint step in the middle of the
 * run, and at the last step, where the run must not be declared succeeded without it. A committed step
 * that lacks its checkpoint gets one on resume.
 */
import { describe, expect, it } from "vitest";
import { callerFor, eventually, prisma } from "../../test/helpers";
import type { Child } from "../../test/processes";
import { tinyTraining } from "../../test/fixtures/tiny-training";
import { embeddedWorkerHarness } from "../../test/worker-harness";


describe("resume after a crash during an evaluation", () => {
  const harness = embeddedWorkerHarness();
  const startWorker = () => harness.startWorker();

  /** Start a run on a fresh worker and SIGKILL that worker once step `step` trained but its evaluation has not committed. */
  async function killDuringEvaluation(name: string, config: ReturnType<typeof tinyTraining>, step: number) {
    await Promise.all(harness.workers.splice(0).map((w) => w.kill("SIGTERM"))); // the killed worker is the only one
    const caller = await callerFor(harness.member.headers);
    const first = startWorker();
    const run = await caller.runs.create({ name, config });
    await eventually(
      async () => {
        const rows = await prisma.step.findMany({ where: { runId: run.id, index: step }, select: { kind: true } });
        return rows.some((r) => r.kind === "train") && !rows.some((r) => r.kind === "eval");
      },
      300_000,
      `step ${step} trained\n${first.output()}`,
    );
    await first.kill("SIGKILL");
    const killedAt = new Date();
    // The kill must have landed during the evaluation: its step is not there (else the test proves nothing).
    expect(await prisma.step.count({ where: { runId: run.id, kind: "eval", index: step } }), "the evaluation finished before the kill").toBe(0);
    expect((await caller.runs.get({ id: run.id })).status).toBe("running");
    return { run, killedAt, caller };
  }

  async function finished(runId: string, worker: Child) {
    const caller = await callerFor(harness.member.headers);
    return eventually(async () => {
      const r = await caller.runs.get({ id: runId });
      return r.status === "succeeded" || r.status === "failed" ? r : null;
    }, 300_000, `the resumed run to finish\n${worker.output()}`);
  }

  it("evaluates a checkpoint step in the middle of the run once, keeps its one checkpoint, and goes on", { timeout: 900_000 }, async () => {
    // Step 2: training + checkpoint (one transaction) + evaluation; step 3 (last): all three again.
    const { run, killedAt, caller } = await killDuringEvaluation("killed-mid-eval", tinyTraining({ steps: 3, saveEvery: 2, evalEvery: 2 }), 2);
    expect(await prisma.checkpoint.count({ where: { runId: run.id, step: 2 } })).toBe(1);

    const second = startWorker();
    const done = await finished(run.id, second);
    expect(done.error, second.output()).toBeNull();
    expect(done.status).toBe("succeeded");
    expect(done.attempts).toBe(2);

    const steps = await prisma.step.findMany({ where: { runId: run.id }, orderBy: [{ kind: "asc" }, { index: "asc" }], select: { kind: true, index: true, startedAt: true, statePath: true } });
    expect(steps.map((s) => `${s.kind}:${s.index}`)).toEqual(["eval:2", "eval:3", "train:1", "train:2", "train:3"]);
    expect(steps.find((s) => s.kind === "eval" && s.index === 2)!.startedAt.getTime()).toBeGreaterThanOrEqual(killedAt.getTime());
    const evalTrajectories = await prisma.trajectory.groupBy({ by: ["step"], where: { runId: run.id, phase: "eval" }, _count: true, orderBy: { step: "asc" } });
    expect(evalTrajectories.map((t) => [t.step, t._count])).toEqual([[2, 4], [3, 4]]);
    const trainTrajectories = await prisma.trajectory.groupBy({ by: ["step"], where: { runId: run.id, phase: "train" }, _count: true, orderBy: { step: "asc" } });
    expect(trainTrajectories.map((t) => [t.step, t._count])).toEqual([[1, 4], [2, 4], [3, 4]]);
    const checkpoints = await prisma.checkpoint.findMany({ where: { runId: run.id }, orderBy: { step: "asc" }, select: { step: true, statePath: true } });
    expect(checkpoints.map((c) => c.step)).toEqual([2, 3]);
    expect(checkpoints[0]!.statePath).toBe(steps.find((s) => s.kind === "train" && s.index === 2)!.statePath);
    const valPoints = await prisma.metricPoint.count({ where: { runId: run.id, key: "val/reward/mean" } });
    expect(valPoints).toBe(2);

    const logs = (await caller.runs.logs({ runId: run.id, limit: 2000 })).map((l) => l.message);
    expect(logs.some((m) => m.startsWith("resuming at step 2 (evaluation) from tinker://"))).toBe(true);
    expect(logs.filter((m) => m.startsWith("eval at step 2:"))).toHaveLength(1);
  });

  it("does not declare a run succeeded before the last step's evaluation exists", { timeout: 900_000 }, async () => {
    const { run, caller } = await killDuringEvaluation("killed-last-eval", tinyTraining({ steps: 2 }), 2);
    const second = startWorker();
    const done = await finished(run.id, second);
    expect(done.error, second.output()).toBeNull();
    expect(done.status).toBe("succeeded");

    const evalStep = await prisma.step.findUniqueOrThrow({ where: { runId_kind_index: { runId: run.id, kind: "eval", index: 2 } }, select: { finishedAt: true } });
    expect(done.finishedAt!.getTime()).toBeGreaterThanOrEqual(evalStep.finishedAt.getTime());
    expect(await prisma.trajectory.count({ where: { runId: run.id, phase: "eval", step: 2 } })).toBe(4);
    expect(await prisma.step.count({ where: { runId: run.id, kind: "train" } })).toBe(2);
    expect(await prisma.checkpoint.count({ where: { runId: run.id } })).toBe(1);
    const logs = (await caller.runs.logs({ runId: run.id, limit: 2000 })).map((l) => l.message);
    expect(logs).toContain("run succeeded");
    expect(logs.some((m) => m.startsWith("resuming at step 2 (evaluation)"))).toBe(true);
    expect(logs.some((m) => /already committed/.test(m))).toBe(false);
  });

  it("makes the missing checkpoint of a committed step on resume", { timeout: 900_000 }, async () => {
    // A run whose last step committed without its checkpoint (as an older worker could leave it).
    const previous = await prisma.run.findFirstOrThrow({ where: { name: "killed-last-eval" }, select: { id: true } });
    const trained = await prisma.step.findUniqueOrThrow({ where: { runId_kind_index: { runId: previous.id, kind: "train", index: 2 } }, select: { statePath: true } });
    await prisma.checkpoint.deleteMany({ where: { runId: previous.id } });
    await prisma.run.update({ where: { id: previous.id }, data: { status: "failed", error: "left without its checkpoint" } });
    const caller = await callerFor(harness.member.headers);
    await caller.runs.resume({ id: previous.id });
    const done = await finished(previous.id, harness.workers.at(-1)!);
    expect(done.error).toBeNull();
    expect(done.status).toBe("succeeded");
    const checkpoints = await prisma.checkpoint.findMany({ where: { runId: previous.id }, select: { step: true, statePath: true, samplerPath: true } });
    expect(checkpoints).toHaveLength(1);
    expect(checkpoints[0]).toMatchObject({ step: 2, statePath: trained.statePath });
    expect(checkpoints[0]!.samplerPath).toMatch(/^tinker:\/\/.+\/sampler_weights\//);
    // Nothing else was redone.
    expect(await prisma.step.count({ where: { runId: previous.id } })).toBe(3);
    const logs = (await caller.runs.logs({ runId: previous.id, limit: 2000 })).map((l) => l.message);
    expect(logs.some((m) => m.startsWith("resuming at step 2 (checkpoint) from tinker://"))).toBe(true);
  });
});
