/** persistStep against real Postgres: one transaction, fenced on the claim, untrusted text stored safely. */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma, signUp } from "../../test/helpers";
import { syntheticStep } from "../../bench/persist";
import type { PrismaClient } from "@prisma/client";
import { connectionOf } from "../../lib/db";
import { ClaimLostError, commitStep, committedParts, persistCheckpoint, persistStep } from "./persist";

describe("persistStep", () => {
  let runId: string;
  beforeAll(async () => {
    const user = await signUp("member");
    const run = await prisma.run.create({
      data: { name: "persist", kind: "train", status: "running", workerId: "w1", config: {}, configVersion: 1, paradigm: "rehearse", policyNode: "embedded", tags: [], totalSteps: 3, createdById: user.id },
    });
    runId = run.id;
  });

  it("commits every row of a step, with NUL and lone surrogates in model output replaced", async () => {
    const step = syntheticStep(1, 120, 2, 2);
    const act = step.trajectories[0]!.turns.find((t) => t.role === "act")!;
    act.text = "bad\u0000byte and a lone \ud800 surrogate, a pair \ud83d\ude00 and a literal \\u0000";
    act.calls![0]!.argumentsJson = '{"city":"Par\u0000is"}';
    const written = await persistStep(prisma, { runId, workerId: "w1", result: step, phase: "train", startedAt: new Date(), progress: { step: 1, total: 3, etaSeconds: 2 } });
    expect(written).toEqual({ turns: 120, trajectories: 4 });
    expect(await prisma.turn.count({ where: { trajectory: { runId, step: 1 } } })).toBe(120);
    expect(await prisma.checklistVerdict.count({ where: { trajectory: { runId, step: 1 } } })).toBe(step.trajectories.reduce((n, t) => n + t.verdicts.length, 0));
    const stored = await prisma.turn.findFirstOrThrow({ where: { trajectory: { runId, step: 1, rolloutIndex: 0, groupId: step.trajectories[0]!.groupId }, index: act.index } });
    expect(stored.text).toBe("bad\ufffdbyte and a lone \ufffd surrogate, a pair \ud83d\ude00 and a literal \\u0000");
    expect(stored.toolCalls).toEqual([{ id: act.calls![0]!.id, name: act.calls![0]!.name, arguments: '{"city":"Par\ufffdis"}' }]);
    const rehearse = await prisma.turn.findFirstOrThrow({ where: { trajectory: { runId, step: 1 }, role: "rehearse" } });
    expect(rehearse.rehearsedResponse).not.toBeNull();
    expect(rehearse.fidelity).toMatchObject({ score: expect.any(Number) });
    expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).progressStep).toBe(1);
  });

  it("bulk rows go on the transaction's own connection (seen by the transaction, rolled back with it)", async () => {
    // The connection behind a Prisma transaction is the one its statements run on: it sees the transaction's uncommitted writes.
    const seen = await prisma.$transaction(async (tx) => {
      const [{ pid }] = await tx.$queryRaw<{ pid: number }[]>`select pg_backend_pid() as pid`;
      const conn = connectionOf(prisma, Number(pid));
      expect(conn).not.toBeNull();
      await tx.$executeRaw`create temp table persist_probe (x int) on commit drop`;
      await tx.$executeRaw`insert into persist_probe values (7)`;
      return (await conn!.query("select x from persist_probe")).rows;
    });
    expect(seen).toEqual([{ x: 7 }]);
    expect(connectionOf(prisma, -1)).toBeNull();

    // A commit that fails after its bulk inserts (here: the step's checkpoint exists already) leaves none of them.
    await persistCheckpoint(prisma, { runId, workerId: "w1", step: 7, nodeName: "embedded", statePath: "s", samplerPath: "p" });
    await expect(
      persistStep(prisma, { runId, workerId: "w1", result: syntheticStep(7, 40, 1, 2), phase: "train", startedAt: new Date(), checkpoint: { nodeName: "embedded", statePath: "s2", samplerPath: "p2" } }),
    ).rejects.toThrow();
    expect(await prisma.trajectory.count({ where: { runId, step: 7 } })).toBe(0);
    expect(await prisma.turn.count({ where: { runId, trajectory: { step: 7 } } })).toBe(0);
    expect(await prisma.step.count({ where: { runId, index: 7 } })).toBe(0);
    await prisma.checkpoint.deleteMany({ where: { runId, step: 7 } });
  });

  it("writes nothing when the worker lost its claim or the step was already committed", async () => {
    await expect(persistStep(prisma, { runId, workerId: "someone-else", result: syntheticStep(2, 40, 1, 2), phase: "train", startedAt: new Date() })).rejects.toBeInstanceOf(ClaimLostError);
    await expect(persistStep(prisma, { runId, workerId: "w1", result: syntheticStep(1, 40, 1, 2), phase: "train", startedAt: new Date() })).rejects.toThrow();
    expect(await prisma.trajectory.count({ where: { runId } })).toBe(4);
    expect(await prisma.turn.count({ where: { trajectory: { runId } } })).toBe(120);
  });

  it("commitStep counts a commit whose acknowledgement was lost in an outage as done, once", async () => {
    // The transaction commits, then the connection drops before the worker hears of it.
    let dropAck = true;
    const flaky = new Proxy(prisma, {
      get(target, prop, receiver) {
        if (prop !== "$transaction") return Reflect.get(target, prop, receiver);
        return async (...args: unknown[]) => {
          const value = await (target.$transaction as (...a: unknown[]) => Promise<unknown>)(...args);
          if (dropAck) {
            dropAck = false;
            throw Object.assign(new Error("Connection terminated unexpectedly"), { code: "ECONNRESET" });
          }
          return value;
        };
      },
    }) as PrismaClient;
    const written = await commitStep(flaky, { runId, workerId: "w1", result: syntheticStep(2, 40, 1, 2), phase: "train", startedAt: new Date(), statePath: "tinker://m/weights/s2" });
    expect(written).toEqual({ turns: 40, trajectories: 2 });
    expect(await prisma.step.count({ where: { runId, kind: "train", index: 2 } })).toBe(1);
    expect(await prisma.trajectory.count({ where: { runId, step: 2 } })).toBe(2);
    // Without an interrupted attempt a duplicate is still an error.
    await expect(commitStep(prisma, { runId, workerId: "w1", result: syntheticStep(2, 40, 1, 2), phase: "train", startedAt: new Date() })).rejects.toThrow();
  });

  it("reads what a run committed by part, and adds a checkpoint only once, under the claim", async () => {
    await persistCheckpoint(prisma, { runId, workerId: "w1", step: 2, nodeName: "embedded", statePath: "tinker://m/weights/s2", samplerPath: "tinker://m/sampler_weights/s2" });
    await persistCheckpoint(prisma, { runId, workerId: "w1", step: 2, nodeName: "embedded", statePath: "tinker://m/weights/other", samplerPath: "tinker://m/sampler_weights/other" });
    await expect(persistCheckpoint(prisma, { runId, workerId: "someone-else", step: 3, nodeName: "embedded", statePath: "x", samplerPath: "y" })).rejects.toBeInstanceOf(ClaimLostError);
    const parts = await committedParts(prisma, runId);
    expect(parts).toEqual({ train: [{ step: 1, statePath: null }, { step: 2, statePath: "tinker://m/weights/s2" }], eval: [], checkpoint: [2], suites: {} });
    expect((await prisma.checkpoint.findFirstOrThrow({ where: { runId, step: 2 } })).statePath).toBe("tinker://m/weights/s2");
  });

  it("commits an evaluation suite's step under its own kind, phase and val/<suite>/ metrics, beside the step's own evaluation", async () => {
    const evalOf = (step: number) => ({ ...syntheticStep(step, 10, 1, 2), kind: "eval" as const });
    await persistStep(prisma, { runId, workerId: "w1", result: evalOf(2), phase: "eval", startedAt: new Date() });
    await persistStep(prisma, { runId, workerId: "w1", result: evalOf(2), phase: "eval", suite: "bfcl", startedAt: new Date() });
    await persistStep(prisma, { runId, workerId: "w1", result: evalOf(2), phase: "eval", suite: "retail", startedAt: new Date() });
    // The same suite and step twice is a duplicate; another step of it is not.
    await expect(persistStep(prisma, { runId, workerId: "w1", result: evalOf(2), phase: "eval", suite: "bfcl", startedAt: new Date() })).rejects.toThrow();
    const kinds = await prisma.step.findMany({ where: { runId, index: 2, kind: { not: "train" } }, orderBy: { kind: "asc" }, select: { kind: true } });
    expect(kinds.map((k) => k.kind)).toEqual(["eval", "suite:bfcl", "suite:retail"]);
    const phases = await prisma.trajectory.groupBy({ by: ["phase"], where: { runId, step: 2, phase: { not: "train" } }, _count: true, orderBy: { phase: "asc" } });
    expect(phases.map((p) => [p.phase, p._count])).toEqual([["eval", 2], ["suite:bfcl", 2], ["suite:retail", 2]]);
    const keys = (await prisma.metricPoint.findMany({ where: { runId, step: 2, key: { endsWith: "reward/mean" } }, select: { key: true }, orderBy: { key: "asc" } })).map((k) => k.key);
    expect(keys).toEqual(["reward/mean", "val/bfcl/reward/mean", "val/retail/reward/mean", "val/reward/mean"]);
    const run = await prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { latestMetrics: true } });
    expect(Object.keys(run.latestMetrics as object)).toEqual(expect.arrayContaining(["val/reward/mean", "val/bfcl/reward/mean", "val/retail/reward/mean"]));
    expect((await committedParts(prisma, runId)).suites).toEqual({ bfcl: [2], retail: [2] });
  });

  it("a replayed step's commit replaces what the step committed before — rows, metric points, fidelity rollup, best metrics — in one transaction", async () => {
    const user = await prisma.user.findFirstOrThrow({ select: { id: true } });
    const run = await prisma.run.create({
      data: { name: "replay", kind: "train", status: "running", workerId: "w1", config: {}, configVersion: 1, paradigm: "rehearse", policyNode: "embedded", tags: [], totalSteps: 6, createdById: user.id },
    });
    const withReward = (reward: number, extra: Record<string, number> = {}) => {
      const step = syntheticStep(5, 40, 1, 2);
      for (const t of step.trajectories) t.reward = reward;
      Object.assign(step.metrics, extra);
      return step;
    };
    const counts = async () => ({
      steps: await prisma.step.count({ where: { runId: run.id, kind: "train", index: 5 } }),
      trajectories: await prisma.trajectory.count({ where: { runId: run.id, step: 5 } }),
      turns: await prisma.turn.count({ where: { trajectory: { runId: run.id, step: 5 } } }),
      verdicts: await prisma.checklistVerdict.count({ where: { trajectory: { runId: run.id, step: 5 } } }),
      fidelity: await prisma.fidelityStat.count({ where: { runId: run.id, step: 5 } }),
    });
    await commitStep(prisma, { runId: run.id, workerId: "w1", result: withReward(0.9, { "only/first": 1 }), phase: "train", startedAt: new Date() });
    const first = await counts();
    expect(first).toMatchObject({ steps: 1, trajectories: 2, turns: 40 });
    expect(first.fidelity).toBeGreaterThan(0);
    // Without `replace` the step key refuses a second commit (the unique trajectory key would too).
    await expect(commitStep(prisma, { runId: run.id, workerId: "w1", result: withReward(0.1), phase: "train", startedAt: new Date() })).rejects.toThrow();

    await commitStep(prisma, { runId: run.id, workerId: "w1", result: withReward(0.1), phase: "train", startedAt: new Date(), replace: true });
    expect(await counts()).toEqual(first);
    const rewards = await prisma.trajectory.findMany({ where: { runId: run.id, step: 5 }, select: { reward: true } });
    expect(rewards.map((r) => r.reward)).toEqual([0.1, 0.1]);
    const points = await prisma.metricPoint.findMany({ where: { runId: run.id, step: 5 }, select: { key: true, value: true } });
    expect(points.find((p) => p.key === "reward/mean")!.value).toBeCloseTo(0.1);
    // A metric only the replaced commit had is gone.
    expect(points.some((p) => p.key === "only/first")).toBe(false);
    const metrics = await prisma.run.findUniqueOrThrow({ where: { id: run.id }, select: { latestMetrics: true, bestMetrics: true } });
    expect((metrics.latestMetrics as Record<string, number>)["reward/mean"]).toBeCloseTo(0.1);
    // The best reward was the replaced step's: it is the best of what remains.
    expect((metrics.bestMetrics as Record<string, number>)["reward/mean"]).toBeCloseTo(0.1);

    // A replayed commit whose acknowledgement was lost is retried and replaces its own first commit: still once.
    let dropAck = true;
    const flaky = new Proxy(prisma, {
      get(target, prop, receiver) {
        if (prop !== "$transaction") return Reflect.get(target, prop, receiver);
        return async (...args: unknown[]) => {
          const value = await (target.$transaction as (...a: unknown[]) => Promise<unknown>)(...args);
          if (dropAck) {
            dropAck = false;
            throw Object.assign(new Error("Connection terminated unexpectedly"), { code: "ECONNRESET" });
          }
          return value;
        };
      },
    }) as PrismaClient;
    await commitStep(flaky, { runId: run.id, workerId: "w1", result: withReward(0.5), phase: "train", startedAt: new Date(), replace: true, statePath: "tinker://m/weights/s5" });
    expect(await counts()).toEqual(first);
    expect((await committedParts(prisma, run.id)).train).toEqual([{ step: 5, statePath: "tinker://m/weights/s5" }]);
    // Another worker's replay deletes nothing.
    await expect(commitStep(prisma, { runId: run.id, workerId: "someone-else", result: withReward(0.2), phase: "train", startedAt: new Date(), replace: true })).rejects.toBeInstanceOf(ClaimLostError);
    expect(await counts()).toEqual(first);
  });
});
