/**
 * A three-arm test-time comparison (no rehearsal / parallel N / sequential N) on the shop domain, launched
 * through the API, evaluated by a real worker process against a real embedded node, persisted in real
 * Postgres: the arms' runs, the private attempts as trajectories linked to their committed execution, the
 * test-time episode as the API serves it, and the report's Table 3.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { spawnTsx, startEmbeddedNode, type Child } from "../../test/processes";
import { testTimePreset, type RunConfigInput } from "../../contracts/run-config";
import { testTimeRecordSchema } from "../../contracts/test-time";

const databaseUrl = inject("databaseUrl");

const sampling = (temperature: number, maxTokens: number) => ({ temperature, topP: 1, maxTokens });

/** The test-time preset, made small enough for a 2-core CI box: 2 tasks, N = 2, short generations. */
const tinyComparison: RunConfigInput = {
  ...testTimePreset,
  data: { dataset: "builtin:shop", split: "test", instancesPerStep: 2, rolloutsPerInstance: 1, seed: 3 },
  rollout: { ...testTimePreset.rollout, maxAssistantTurns: 2, maxUserTurns: 2, maxMicroSteps: 6, maxConcurrentRollouts: 2 },
  testTime: {
    enabled: true,
    attempts: 2,
    mode: "parallel",
    sampling: { act: sampling(1, 40), rehearse: sampling(1, 40), assessment: sampling(0.01, 24), memory: sampling(0.01, 32) },
    transcriptTokens: 256,
    thinkingTokens: 0,
  },
};

describe("a test-time comparison through the embedded node", () => {
  let member: TestUser;
  let node: Awaited<ReturnType<typeof startEmbeddedNode>>;
  let worker: Child;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    node = await startEmbeddedNode();
    await prisma.node.create({ data: { name: "embedded", kind: "embedded", baseUrl: node.url } });
    worker = spawnTsx("worker/main.ts", { DATABASE_URL: databaseUrl, ENVACE_SECRET: process.env.ENVACE_SECRET, WORKER_CONCURRENCY: "1" });
  });
  afterAll(async () => {
    await worker?.kill("SIGKILL");
    await node?.kill("SIGKILL");
    const { getBoss } = await import("../../server/lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("evaluates the three arms on the same tasks and lays them out as Table 3", async () => {
    const caller = await callerFor(member.headers);
    const launched = await caller.runs.launchTestTimeComparison({ name: "tts-shop", config: tinyComparison, benchmarks: [{ dataset: "builtin:shop" }] });
    expect(launched.runs.map((r) => r.arm)).toEqual(["none", "parallel", "sequential"]);
    const runs = await Promise.all(
      launched.runs.map((r) =>
        eventually(async () => {
          const got = await caller.runs.get({ id: r.id });
          return got.status === "succeeded" || got.status === "failed" ? got : null;
        }, 600_000, `run ${r.name} to finish\n${worker.output()}`),
      ),
    );
    for (const r of runs) expect(r.error, `${r.name}\n${worker.output()}`).toBeNull();

    // Same tasks in every arm.
    const committed = await prisma.trajectory.findMany({
      where: { runId: { in: launched.runs.map((r) => r.id) }, phase: "eval" },
      select: { id: true, runId: true, instanceId: true, paradigm: true, summary: true },
    });
    const tasksOf = (runId: string) => committed.filter((t) => t.runId === runId).map((t) => t.instanceId).sort();
    const [none, parallel, sequential] = launched.runs;
    expect(tasksOf(none!.id)).toHaveLength(2);
    expect(tasksOf(parallel!.id)).toEqual(tasksOf(none!.id));
    expect(tasksOf(sequential!.id)).toEqual(tasksOf(none!.id));
    expect(committed.every((t) => t.paradigm === "environment")).toBe(true);

    // The no-rehearsal arm has no private attempts; each test-time arm has N per committed execution, linked to it.
    expect(await prisma.trajectory.count({ where: { runId: none!.id, phase: "private" } })).toBe(0);
    for (const arm of [parallel!, sequential!]) {
      const mine = committed.filter((t) => t.runId === arm.id);
      for (const t of mine) {
        const record = testTimeRecordSchema.parse((t.summary as { testTime: unknown }).testTime);
        expect(record.mode).toBe(arm.arm);
        expect(record.attempts).toHaveLength(2);
        expect(record.sampling.assessment.temperature).toBe(0.01);
        const attempts = await prisma.trajectory.findMany({ where: { parentId: t.id }, orderBy: { rolloutIndex: "asc" }, select: { phase: true, paradigm: true, rolloutIndex: true, numTurns: true, id: true } });
        expect(attempts.map((a) => [a.phase, a.paradigm, a.rolloutIndex])).toEqual([
          ["private", "rehearse", 0],
          ["private", "rehearse", 1],
        ]);
        // A private attempt is rehearsed end to end: no turn answered by the real world.
        expect(await prisma.turn.count({ where: { trajectoryId: { in: attempts.map((a) => a.id) }, OR: [{ role: "environment" }, { realResponse: { not: null } }] } })).toBe(0);
      }
      // The run's trajectory list shows committed executions only, each with its attempts' count.
      const list = await caller.trajectories.list({ runId: arm.id, limit: 50 });
      expect(list.items.map((i) => i.phase)).toEqual(["eval", "eval"]);
      expect(list.items.every((i) => i.privateAttempts === 2)).toBe(true);
      const facets = await caller.trajectories.facets({ runId: arm.id });
      expect(facets.total).toBe(2);

      // The episode as the view reads it, from the committed trajectory or from one of its attempts.
      const episode = await caller.trajectories.testTimeEpisode({ id: mine[0]!.id });
      expect(episode.attempts).toHaveLength(2);
      expect(episode.attempts.every((a) => a.phase === "private" && a.feedback !== null)).toBe(true);
      expect(episode.record.attempts.map((a) => a.index)).toEqual([0, 1]);
      const viaAttempt = await caller.trajectories.testTimeEpisode({ id: episode.attempts[1]!.id });
      expect(viaAttempt.committed.id).toBe(mine[0]!.id);
      const turns = await caller.trajectories.turns({ trajectoryId: episode.attempts[0]!.id, limit: 50 });
      expect(turns.turns.length).toBe(episode.attempts[0]!.numTurns);
    }

    const metricKeys = await prisma.metricPoint.findMany({ where: { runId: parallel!.id }, select: { key: true } });
    expect(metricKeys.map((k) => k.key)).toEqual(expect.arrayContaining(["val/testtime/private_tokens/mean", "val/testtime/attempts"]));
    const logs = (await caller.runs.logs({ runId: parallel!.id, limit: 200 })).map((l) => l.message);
    expect(logs.some((m) => m.startsWith("test-time rehearsal: 2 private attempt(s) per task (parallel)"))).toBe(true);

    // The report launched with the arms lays them out as Table 3.
    const { document } = await caller.reports.get({ id: launched.reportId });
    const table = document.testTime!;
    expect(table.benchmarks).toEqual([{ key: "builtin:shop", label: "Shop (built-in)" }]);
    expect(table.rows.map((r) => r.label)).toEqual(["No test-time scaling", "Parallel rehearsal (N=2)", "Sequential rehearsal (N=2)"]);
    for (const row of table.rows) {
      const cell = row.cells["builtin:shop"]!;
      expect(cell.instances).toBe(2);
      expect(cell.value).toBeGreaterThanOrEqual(0);
      expect(row.overall).toBe(cell.value);
    }
    expect(table.rows[1]!.delta).toBeCloseTo(table.rows[1]!.overall! - table.rows[0]!.overall!, 2);
    expect(table.notes).toEqual([]);
  }, 900_000);
});
