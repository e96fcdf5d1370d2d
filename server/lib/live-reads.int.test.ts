/**
 * Shared live reads against real Postgres: many viewers of one run cost one query per change, and the
 * worker's commit (its trigger's signal through server/events.ts) makes the shared result stale before
 * any viewer hears of the change; a change made through the API is read back at once.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../contracts/events";
import { getChangeFeed } from "../events";
import { callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { syntheticStep } from "../../bench/persist";
import { claimRun } from "../../worker/runner/lifecycle";
import { persistStep } from "../../worker/runner/persist";
import { liveReads } from "./live-reads";

describe("shared live reads", () => {
  let member: TestUser;
  let runId: string;
  const heard: ChangeEvent[] = [];

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    const run = await prisma.run.create({
      data: { name: "shared", kind: "train", status: "queued", config: {}, configVersion: 1, paradigm: "rehearse", policyNode: "embedded", tags: [], totalSteps: 3, createdById: member.id },
      select: { id: true },
    });
    runId = run.id;
    getChangeFeed().on("change", (e: ChangeEvent) => heard.push(e));
    liveReads();
    expect(await getChangeFeed().whenConnected()).toBe(true);
    await claimRun(prisma, runId, "w-shared");
    await eventually(async () => liveReads().sharing && heard.some((e) => e.t === "run" && e.id === runId), 10_000, "the change feed");
  });

  it("serves every viewer of a run from one query until a step commits, then the new step", async () => {
    await persistStep(prisma, { runId, workerId: "w-shared", result: syntheticStep(1, 20, 1, 2), phase: "train", startedAt: new Date() });
    await eventually(async () => heard.some((e) => e.t === "step" && e.id === runId), 10_000, "step 1's signal");
    const input = { runId, keys: ["reward/mean"], maxPoints: 300, axis: "step" as const };
    const reads = liveReads();
    const misses = reads.misses;
    const viewers = await Promise.all(Array.from({ length: 20 }, async () => (await callerFor(member.headers)).metrics.series(input)));
    expect(reads.misses - misses).toBe(1);
    expect(viewers.every((v) => v.series[0]!.points.length === 1)).toBe(true);

    // The worker commits step 2; by the time a viewer hears of it, the shared result is gone.
    let refetched: Promise<number> | null = null;
    const onStep = (e: ChangeEvent) => {
      if (e.t === "step" && e.id === runId && !refetched) refetched = callerFor(member.headers).then((c) => c.metrics.series(input)).then((r) => r.series[0]!.points.length);
    };
    getChangeFeed().on("change", onStep);
    await persistStep(prisma, { runId, workerId: "w-shared", result: syntheticStep(2, 20, 1, 2), phase: "train", startedAt: new Date() });
    await eventually(async () => refetched, 10_000, "a viewer's refetch on step 2's signal");
    expect(await refetched!).toBe(2);
    getChangeFeed().off("change", onStep);
  });

  it("gives every viewer of a REST-exposed read the one validated result (runs.get has an output schema)", async () => {
    const reads = liveReads();
    reads.clear();
    const misses = reads.misses;
    const viewers = await Promise.all(Array.from({ length: 5 }, async () => (await callerFor(member.headers)).runs.get({ id: runId })));
    expect(reads.misses - misses).toBe(1);
    // The same object, not a copy per caller: output validation ran once and serialisation is shared.
    expect(new Set(viewers).size).toBe(1);
    expect(viewers[0]!.statusDetail).toBeNull();
  });

  it("reads back a change made through the API at once, without waiting for its signal", async () => {
    const caller = await callerFor(member.headers);
    expect((await caller.runs.get({ id: runId })).cancelRequested).toBe(false);
    const reads = liveReads();
    const invalidate = reads.invalidate;
    reads.invalidate = () => {}; // the change signal is late
    try {
      await caller.runs.cancel({ id: runId });
      expect((await caller.runs.get({ id: runId })).cancelRequested).toBe(true);
    } finally {
      reads.invalidate = invalidate;
    }
  });
});
