/**
 * Training runs end to end through real protocol calls to a real embedded node process, persisted
 * in real Postgres; and crash recovery with a real worker process killed mid-run.
 */
import { describe, expect, it } from "vitest";
import { callerFor, eventually, prisma } from "../../test/helpers";
import { embeddedWorkerHarness } from "../../test/worker-harness";
import type { RunConfigInput } from "../../contracts/run-config";

const tinyTraining = (steps: number): RunConfigInput => ({
  kind: "train",
  policy: { node: "embedded", model: "tiny-gpt" },
  data: { dataset: "builtin:shop", instancesPerStep: 2, rolloutsPerInstance: 2, seed: 7 },
  rollout: { paradigm: "rehearse", shadowExecution: true, maxAssistantTurns: 2, maxUserTurns: 2, maxMicroSteps: 6, promptBudgetTokens: 1024, responseBudgetTokens: 48 },
  sampling: {
    act: { temperature: 1, topP: 1, maxTokens: 48 },
    rehearse: { temperature: 1, topP: 1, maxTokens: 48 },
    evalAct: { temperature: 0.6, topP: 0.95, maxTokens: 48 },
    evalRehearse: { temperature: 0.6, topP: 0.95, maxTokens: 48 },
  },
  optim: { lr: 1e-3 },
  schedule: { steps, saveEvery: 2, evalEvery: 100 },
});

describe("training runs through the embedded node", () => {
  const harness = embeddedWorkerHarness();
  const startWorker = () => harness.startWorker();

  it("trains, evaluates and checkpoints, committing every step's rows", async () => {
    const worker = startWorker();
    const caller = await callerFor(harness.member.headers);
    const config = tinyTraining(3);
    (config.schedule as { evalEvery: number }).evalEvery = 3;
    const run = await caller.runs.create({ name: "tiny-train", config });
    const done = await eventually(async () => {
      const r = await caller.runs.get({ id: run.id });
      return r.status === "succeeded" || r.status === "failed" ? r : null;
    }, 240_000, `run to finish\n${worker.output()}`);
    expect(done.error, worker.output()).toBeNull();
    expect(done.status).toBe("succeeded");
    expect(done.progressStep).toBe(3);

    const steps = await prisma.step.findMany({ where: { runId: run.id }, orderBy: [{ kind: "asc" }, { index: "asc" }], select: { kind: true, index: true, statePath: true } });
    expect(steps.map((s) => `${s.kind}:${s.index}`)).toEqual(["eval:3", "train:1", "train:2", "train:3"]);
    expect(steps.filter((s) => s.kind === "train").every((s) => s.statePath?.startsWith("tinker://"))).toBe(true);

    const trainTrajectories = await prisma.trajectory.findMany({ where: { runId: run.id, phase: "train" }, select: { id: true, step: true, groupId: true, rolloutIndex: true, paradigm: true } });
    expect(trainTrajectories).toHaveLength(3 * 2 * 2);
    expect(new Set(trainTrajectories.map((t) => t.groupId)).size).toBe(3 * 2);
    const turns = await prisma.turn.findMany({ where: { trajectoryId: { in: trainTrajectories.map((t) => t.id) } }, select: { role: true, advantage: true, responseTokens: true } });
    expect(turns.some((t) => t.role === "act" && t.responseTokens > 0 && t.advantage !== null)).toBe(true);
    const checkpoints = await prisma.checkpoint.findMany({ where: { runId: run.id }, orderBy: { step: "asc" }, select: { step: true, statePath: true } });
    expect(checkpoints.map((c) => c.step)).toEqual([2, 3]);
    const keys = await prisma.metricPoint.findMany({ where: { runId: run.id, step: 1 }, select: { key: true } });
    expect(keys.map((k) => k.key)).toEqual(expect.arrayContaining(["reward/mean", "episode/reward/mean", "timing_s/step"]));
    expect(Object.keys(done.latestMetrics as object)).toContain("reward/mean");
  });

  it("resumes after the worker process is killed mid-run, with nothing duplicated or lost", async () => {
    await Promise.all(harness.workers.splice(0).map((w) => w.kill("SIGTERM")));
    const caller = await callerFor(harness.member.headers);
    const first = startWorker();
    const run = await caller.runs.create({ name: "killed", config: tinyTraining(4) });
    await eventually(async () => (await prisma.step.count({ where: { runId: run.id, kind: "train" } })) >= 2, 240_000, `two committed steps\n${first.output()}`);
    await first.kill("SIGKILL");
    const committedAtKill = await prisma.step.count({ where: { runId: run.id, kind: "train" } });
    expect((await caller.runs.get({ id: run.id })).status).toBe("running");

    const second = startWorker();
    const done = await eventually(async () => {
      const r = await caller.runs.get({ id: run.id });
      return r.status === "succeeded" || r.status === "failed" ? r : null;
    }, 240_000, `resumed run to finish\n${second.output()}`);
    expect(done.error, second.output()).toBeNull();
    expect(done.attempts).toBe(2);

    const steps = await prisma.step.findMany({ where: { runId: run.id, kind: "train" }, orderBy: { index: "asc" }, select: { index: true } });
    expect(steps.map((s) => s.index)).toEqual([1, 2, 3, 4]);
    const trajectories = await prisma.trajectory.groupBy({ by: ["step"], where: { runId: run.id, phase: "train" }, _count: true, orderBy: { step: "asc" } });
    expect(trajectories.map((t) => [t.step, t._count])).toEqual([[1, 4], [2, 4], [3, 4], [4, 4]]);
    const logs = (await caller.runs.logs({ runId: run.id, limit: 2000 })).map((l) => l.message);
    expect(logs.some((m) => m.startsWith(`resuming after committed step ${committedAtKill}`))).toBe(true);
    expect(logs.some((m) => /worker lost/.test(m))).toBe(true);
  });
});
