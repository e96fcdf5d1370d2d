/**
 * Evaluation suites of a training run (schedule.evalSuites) end to end: a real worker process trains on
 * the real embedded node and evaluates two suites besides the dataset's own split at every evaluated
 * step — committed as their own steps (kind suite:<name>), charted as val/<suite>/…, with trajectories of
 * phase suite:<name>. Then a worker is killed with SIGKILL after one suite of a step committed and
 * before the other did: the resumed run evaluates only the missing suite, and nothing is lost or doubled.
 */
import { describe, expect, it } from "vitest";
import type { RunConfigInput } from "../../contracts/run-config";
import { callerFor, eventually, prisma } from "../../test/helpers";
import type { Child } from "../../test/processes";
import { tinyTraining } from "../../test/fixtures/tiny-training";
import { embeddedWorkerHarness } from "../../test/worker-harness";


function withSuites(steps: number, evalEvery: number, evalSuites: NonNullable<NonNullable<RunConfigInput["schedule"]>["evalSuites"]>, evalOwnSplit = true): RunConfigInput {
  const base = tinyTraining({ steps, evalEvery, saveEvery: 100 });
  return { ...base, schedule: { ...base.schedule, evalOwnSplit, evalSuites } };
}

describe("evaluation suites during training", () => {
  const harness = embeddedWorkerHarness();
  const startWorker = () => harness.startWorker();

  const finished = async (runId: string, worker: Child) => {
    const caller = await callerFor(harness.member.headers);
    return eventually(async () => {
      const r = await caller.runs.get({ id: runId });
      return r.status === "succeeded" || r.status === "failed" ? r : null;
    }, 300_000, `the run to finish\n${worker.output()}`);
  };

  it("evaluates and charts two suites at every evaluated step, each committed as its own step", { timeout: 600_000 }, async () => {
    const worker = startWorker();
    const caller = await callerFor(harness.member.headers);
    const config = withSuites(2, 1, [
      { name: "shop-test", dataset: "builtin:shop", split: "test", limit: 2 },
      { name: "shop-train", dataset: "builtin:shop", split: "train", instanceIds: ["shop-price-tea-0", "shop-stock-tea-0"], repeats: 2 },
    ]);
    const run = await caller.runs.create({ name: "two-suites", config });
    const done = await finished(run.id, worker);
    expect(done.error, worker.output()).toBeNull();
    expect(done.status).toBe("succeeded");
    expect(done.statusDetail).toBeNull();

    const steps = await prisma.step.findMany({ where: { runId: run.id }, orderBy: [{ kind: "asc" }, { index: "asc" }], select: { kind: true, index: true } });
    expect(steps.map((s) => `${s.kind}:${s.index}`)).toEqual([
      "eval:1", "eval:2", "suite:shop-test:1", "suite:shop-test:2", "suite:shop-train:1", "suite:shop-train:2", "train:1", "train:2",
    ]);
    const byPhase = await prisma.trajectory.groupBy({ by: ["phase", "step"], where: { runId: run.id }, _count: true, orderBy: [{ phase: "asc" }, { step: "asc" }] });
    expect(byPhase.map((g) => [g.phase, g.step, g._count])).toEqual([
      ["eval", 1, 4], ["eval", 2, 4],
      // limit 2 × 1 trial; two named tasks × repeats 2
      ["suite:shop-test", 1, 2], ["suite:shop-test", 2, 2],
      ["suite:shop-train", 1, 4], ["suite:shop-train", 2, 4],
      ["train", 1, 4], ["train", 2, 4],
    ]);
    // The named tasks are the suite's; the sample of 2 is the same at every step.
    const suiteTasks = await prisma.trajectory.findMany({ where: { runId: run.id, phase: { startsWith: "suite:" } }, select: { phase: true, step: true, instanceId: true, paradigm: true } });
    expect(new Set(suiteTasks.filter((t) => t.phase === "suite:shop-train").map((t) => t.instanceId))).toEqual(new Set(["shop-price-tea-0", "shop-stock-tea-0"]));
    const sample = (step: number) => suiteTasks.filter((t) => t.phase === "suite:shop-test" && t.step === step).map((t) => t.instanceId).sort();
    expect(sample(1)).toEqual(sample(2));
    // A suite runs the real environment (the run itself rehearses).
    expect(new Set(suiteTasks.map((t) => t.paradigm))).toEqual(new Set(["environment"]));

    const keys = new Set((await prisma.metricPoint.findMany({ where: { runId: run.id }, select: { key: true }, distinct: ["key"] })).map((k) => k.key));
    for (const key of ["val/reward/mean", "val/shop-test/reward/mean", "val/shop-test/pass@1", "val/shop-test/avg@1", "val/shop-train/reward/mean", "val/shop-train/pass@2", "val/shop-train/response_length/act/mean"]) {
      expect(keys.has(key), key).toBe(true);
    }
    expect(await prisma.metricPoint.count({ where: { runId: run.id, key: "val/shop-train/reward/mean" } })).toBe(2);
    expect(Object.keys(done.latestMetrics as object)).toEqual(expect.arrayContaining(["val/reward/mean", "val/shop-test/reward/mean", "val/shop-train/reward/mean"]));

    // What the run page and GET /runs/{id}/evaluations read: one row per evaluation step, own first.
    const { items } = await caller.runs.evaluations({ id: run.id });
    expect(items.map((e) => [e.suite, e.step, e.episodes, e.k, e.dataset, e.split])).toEqual([
      [null, 1, 4, 2, "builtin:shop", null], [null, 2, 4, 2, "builtin:shop", null],
      ["shop-test", 1, 2, 1, "builtin:shop", "test"], ["shop-test", 2, 2, 1, "builtin:shop", "test"],
      ["shop-train", 1, 4, 2, "builtin:shop", "train"], ["shop-train", 2, 4, 2, "builtin:shop", "train"],
    ]);
    const point = await prisma.metricPoint.findUniqueOrThrow({ where: { runId_key_step: { runId: run.id, key: "val/shop-train/reward/mean", step: 2 } }, select: { value: true } });
    expect(items[5]!.reward).toBe(point.value);
    expect(items[5]!.success).toBe(items[5]!.metrics["val/avg@2"]);
    // Browsable by suite: the list filter and the facets.
    const listed = await caller.trajectories.list({ runId: run.id, suite: "shop-train", limit: 50 });
    expect(listed.items).toHaveLength(8);
    expect(new Set(listed.items.map((t) => t.phase))).toEqual(new Set(["suite:shop-train"]));
    expect((await caller.trajectories.facets({ runId: run.id })).suites).toEqual(["shop-test", "shop-train"]);
    const group = await caller.trajectories.group({ runId: run.id, step: 2, groupId: listed.items[0]!.groupId, phase: "suite:shop-train" });
    expect(group.members).toHaveLength(2);

    const logs = (await caller.runs.logs({ runId: run.id, limit: 2000 })).map((l) => l.message);
    expect(logs).toContain("evaluation suite shop-train: 2 task(s) of builtin:shop (train split) × 2 trial(s), environment paradigm");
    expect(logs.filter((m) => m.startsWith("suite shop-test at step "))).toHaveLength(2);
  });

  it("evaluates only the suites when the dataset's own split is turned off", { timeout: 600_000 }, async () => {
    const worker = harness.workers.at(-1)!;
    const caller = await callerFor(harness.member.headers);
    const run = await caller.runs.create({ name: "suites-only", config: withSuites(1, 1, [{ name: "shop-test", dataset: "builtin:shop", limit: 1 }], false) });
    const done = await finished(run.id, worker);
    expect(done.status, String(done.error)).toBe("succeeded");
    const steps = await prisma.step.findMany({ where: { runId: run.id }, orderBy: [{ kind: "asc" }], select: { kind: true } });
    expect(steps.map((s) => s.kind)).toEqual(["suite:shop-test", "train"]);
    expect(await prisma.metricPoint.count({ where: { runId: run.id, key: "val/reward/mean" } })).toBe(0);
  });

  it("after a crash between two suites of a step, evaluates only the missing one", { timeout: 900_000 }, async () => {
    await Promise.all(harness.workers.splice(0).map((w) => w.kill("SIGTERM")));
    const caller = await callerFor(harness.member.headers);
    const first = startWorker();
    // Suite "quick" (1 episode) commits first; "slow" (12 episodes) gives the kill its window.
    const config = withSuites(2, 2, [
      { name: "quick", dataset: "builtin:shop", limit: 1 },
      { name: "slow", dataset: "builtin:shop", split: "train", limit: 6, repeats: 2 },
    ]);
    const run = await caller.runs.create({ name: "killed-between-suites", config });
    // The run's status counts the suite's episodes while it runs.
    const counted = await eventually(
      async () => {
        const kinds = (await prisma.step.findMany({ where: { runId: run.id, index: 2 }, select: { kind: true } })).map((s) => s.kind);
        const { statusDetail } = await prisma.run.findUniqueOrThrow({ where: { id: run.id }, select: { statusDetail: true } });
        return kinds.includes("suite:quick") && !kinds.includes("suite:slow") && /^evaluation suite slow at step 2: \d+ of 12 episodes$/.test(statusDetail ?? "") ? statusDetail : null;
      },
      300_000,
      `suite slow of step 2 under way\n${first.output()}`,
    );
    expect(counted).toMatch(/: ([1-9]|1[0-2]) of 12 episodes$/);
    await first.kill("SIGKILL");
    const killedAt = new Date();
    expect(await prisma.step.count({ where: { runId: run.id, kind: "suite:slow" } }), "suite slow finished before the kill").toBe(0);
    const quickBefore = await prisma.step.findUniqueOrThrow({ where: { runId_kind_index: { runId: run.id, kind: "suite:quick", index: 2 } }, select: { id: true, startedAt: true } });

    const second = startWorker();
    const done = await finished(run.id, second);
    expect(done.error, second.output()).toBeNull();
    expect(done.status).toBe("succeeded");
    expect(done.attempts).toBe(2);

    const steps = await prisma.step.findMany({ where: { runId: run.id }, orderBy: [{ kind: "asc" }, { index: "asc" }], select: { id: true, kind: true, index: true, startedAt: true } });
    expect(steps.map((s) => `${s.kind}:${s.index}`)).toEqual(["eval:2", "suite:quick:2", "suite:slow:2", "train:1", "train:2"]);
    // The committed suite was not evaluated again; the missing one was, after the kill.
    expect(steps.find((s) => s.kind === "suite:quick")).toMatchObject({ id: quickBefore.id, startedAt: quickBefore.startedAt });
    expect(steps.find((s) => s.kind === "suite:slow")!.startedAt.getTime()).toBeGreaterThanOrEqual(killedAt.getTime());
    const counts = await prisma.trajectory.groupBy({ by: ["phase"], where: { runId: run.id, step: 2, phase: { startsWith: "suite:" } }, _count: true, orderBy: { phase: "asc" } });
    expect(counts.map((c) => [c.phase, c._count])).toEqual([["suite:quick", 1], ["suite:slow", 12]]);
    expect(await prisma.metricPoint.count({ where: { runId: run.id, key: "val/quick/reward/mean" } })).toBe(1);
    expect(await prisma.metricPoint.count({ where: { runId: run.id, key: "val/slow/reward/mean" } })).toBe(1);

    const logs = (await caller.runs.logs({ runId: run.id, limit: 2000 })).map((l) => l.message);
    expect(logs.some((m) => m.startsWith("resuming at step 2 (evaluation suite slow) from tinker://"))).toBe(true);
    expect(logs.filter((m) => m.startsWith("suite quick at step 2:"))).toHaveLength(1);
    expect(logs.filter((m) => m.startsWith("suite slow at step 2:"))).toHaveLength(1);
  });
});
