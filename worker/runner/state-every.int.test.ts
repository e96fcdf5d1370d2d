/**
 * schedule.stateEvery with a real worker process and the real embedded node: a run saves its training
 * state only every stateEvery steps (and at the last step); killed after a step without a state it
 * resumes from the last saved one and replays the steps after it, replacing what they committed, so no
 * trajectory, evaluation or metric point is duplicated and every part of the run ends committed once. A
 * node restart that takes weights no state was saved of resumes the same way, in the same attempt.
 */
import { describe, expect, it } from "vitest";
import { callerFor, eventually, prisma } from "../../test/helpers";
import type { Child } from "../../test/processes";
import { tinyTraining } from "../../test/fixtures/tiny-training";
import { embeddedWorkerHarness } from "../../test/worker-harness";


describe("training states every stateEvery steps", () => {
  const harness = embeddedWorkerHarness();
  const startWorker = () => harness.startWorker();

  async function finished(runId: string, worker: Child) {
    const caller = await callerFor(harness.member.headers);
    return eventually(async () => {
      const r = await caller.runs.get({ id: runId });
      return r.status === "succeeded" || r.status === "failed" ? r : null;
    }, 600_000, `the run to finish\n${worker.output()}`);
  }

  const trainRows = (runId: string) =>
    prisma.step.findMany({ where: { runId, kind: "train" }, orderBy: { index: "asc" }, select: { index: true, statePath: true, startedAt: true } });

  it("saves states at 3, 6 and the last step; killed after step 5 it resumes from step 3's state and replays 4–5 with nothing duplicated", { timeout: 900_000 }, async () => {
    const caller = await callerFor(harness.member.headers);
    const first = startWorker();
    // States at 3, 6 and 7 (the last); evaluations at 5 and 7; the one checkpoint at 7.
    const run = await caller.runs.create({ name: "state-every-3", config: tinyTraining({ steps: 7, stateEvery: 3, evalEvery: 5 }) });
    // Kill once step 5's evaluation committed, while step 6 trains.
    await eventually(async () => (await prisma.step.count({ where: { runId: run.id, kind: "eval", index: 5 } })) > 0, 600_000, `step 5 evaluated\n${first.output()}`);
    await first.kill("SIGKILL");
    const killedAt = new Date();
    const before = await trainRows(run.id);
    // The kill must have landed before step 6 committed (else nothing is replayed and the test proves nothing).
    expect(before.map((s) => s.index), "step 6 committed before the kill").toEqual([1, 2, 3, 4, 5]);
    expect(before.map((s) => s.statePath !== null)).toEqual([false, false, true, false, false]);
    const evalBefore = await prisma.step.findUniqueOrThrow({ where: { runId_kind_index: { runId: run.id, kind: "eval", index: 5 } }, select: { id: true } });

    const second = startWorker();
    const done = await finished(run.id, second);
    expect(done.error, second.output()).toBeNull();
    expect(done.status).toBe("succeeded");
    expect(done.attempts).toBe(2);

    const after = await trainRows(run.id);
    expect(after.map((s) => s.index)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // Only steps 3, 6 and 7 have a state; the replayed 4 and 5 still save none.
    expect(after.filter((s) => s.statePath !== null).map((s) => s.index)).toEqual([3, 6, 7]);
    expect(after[2]!.statePath).toBe(before[2]!.statePath);
    // Steps 1–3 were kept; 4 and 5 were replayed (committed again after the kill); 6 and 7 are new.
    expect(after.filter((s) => s.startedAt.getTime() >= killedAt.getTime()).map((s) => s.index)).toEqual([4, 5, 6, 7]);

    const trajectories = await prisma.trajectory.groupBy({ by: ["phase", "step"], where: { runId: run.id }, _count: true, orderBy: [{ phase: "asc" }, { step: "asc" }] });
    expect(trajectories.map((t) => [t.phase, t.step, t._count])).toEqual([
      ["eval", 5, 4],
      ["eval", 7, 4],
      ...[1, 2, 3, 4, 5, 6, 7].map((s) => ["train", s, 4]),
    ]);
    // Step 5's evaluation sampled weights the replay recomputed: it was redone and replaces the first.
    const evals = await prisma.step.findMany({ where: { runId: run.id, kind: "eval" }, orderBy: { index: "asc" }, select: { id: true, index: true, startedAt: true } });
    expect(evals.map((e) => e.index)).toEqual([5, 7]);
    expect(evals[0]!.id).not.toBe(evalBefore.id);
    expect(evals[0]!.startedAt.getTime()).toBeGreaterThanOrEqual(killedAt.getTime());
    expect(await prisma.metricPoint.count({ where: { runId: run.id, key: "reward/mean" } })).toBe(7);
    expect(await prisma.metricPoint.count({ where: { runId: run.id, key: "val/reward/mean" } })).toBe(2);
    expect((await prisma.checkpoint.findMany({ where: { runId: run.id }, select: { step: true } })).map((c) => c.step)).toEqual([7]);

    const logs = (await caller.runs.logs({ runId: run.id, limit: 2000 })).map((l) => l.message);
    expect(logs.some((m) => /^resuming from the state of step 3 \(tinker:\/\/.+\); replaying steps 4–5 \(no state saved\)$/.test(m)), logs.join("\n")).toBe(true);
    // saveState ran after steps 3, 6 and 7 only, in both attempts together.
    const saved = logs.filter((m) => /^step \d+\/7: .*, state saved \(\d+\.\d+ s\)$/.test(m)).map((m) => Number(/^step (\d+)/.exec(m)![1]));
    expect(saved).toEqual([3, 6, 7]);
    expect(logs.filter((m) => /^step [45]\/7: .*\(replayed, replacing the earlier commit\)/.test(m))).toHaveLength(2);
    expect(logs.filter((m) => /^eval at step 5: .*\(replayed, replacing the earlier evaluation\)$/.test(m))).toHaveLength(1);
  });

  it("after a node restart that took unsaved weights, resumes from the last saved state in the same attempt", { timeout: 900_000 }, async () => {
    await Promise.all(harness.workers.splice(0).map((w) => w.kill("SIGTERM")));
    const worker = startWorker();
    const caller = await callerFor(harness.member.headers);
    const run = await caller.runs.create({ name: "state-every-restart", config: tinyTraining({ steps: 4, stateEvery: 3 }) });
    await eventually(async () => (await prisma.step.count({ where: { runId: run.id, kind: "train" } })) >= 1, 300_000, `step 1 committed\n${worker.output()}`);
    // Step 2 is in flight from step 1's weights, which no state holds; the node forgets them.
    await harness.node.kill("SIGKILL");
    const killedAt = new Date();
    expect((await trainRows(run.id)).map((s) => [s.index, s.statePath])).toEqual([[1, null]]);
    await new Promise((r) => setTimeout(r, 6000));
    await harness.startNodeAgain();

    const done = await finished(run.id, worker);
    expect(done.error, worker.output()).toBeNull();
    expect(done.status).toBe("succeeded");
    expect(done.attempts).toBe(1); // the same worker carried on

    const rows = await trainRows(run.id);
    expect(rows.map((s) => [s.index, s.statePath !== null])).toEqual([[1, false], [2, false], [3, true], [4, true]]);
    // Step 1 was replayed from the base model after the restart.
    expect(rows[0]!.startedAt.getTime()).toBeGreaterThanOrEqual(killedAt.getTime());
    const trajectories = await prisma.trajectory.groupBy({ by: ["phase", "step"], where: { runId: run.id }, _count: true, orderBy: [{ phase: "asc" }, { step: "asc" }] });
    expect(trajectories.map((t) => [t.phase, t.step, t._count])).toEqual([["eval", 4, 4], ["train", 1, 4], ["train", 2, 4], ["train", 3, 4], ["train", 4, 4]]);

    const logs = (await caller.runs.logs({ runId: run.id, limit: 2000 })).map((l) => l.message);
    expect(logs.some((m) => /^node "embedded": step 2 \(training\) interrupted: .*retrying from the base model, replaying step 1 \(no state saved\)/.test(m)), logs.join("\n")).toBe(true);
    expect(logs).toContain(
      'node "embedded": the weights after step 1 were not saved (schedule.stateEvery) and the restarted node no longer holds them; resuming from the base model; replaying step 1 (no state saved)',
    );
  });
});
