/**
 * A run outlives its pg-boss job's expiry (23 hours in production, 2 s here): the worker keeps the slot for as
 * long as the run goes on, claims no second job into it, and pg-boss neither fails nor retries the run's job.
 */
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { registerCheckedNode } from "../../test/fixtures/doctor-report";
import { RunWorker } from "./worker";
import type { Executor } from "./context";

const databaseUrl = inject("databaseUrl");
const EXPIRE_S = 2;
const RUN_MS = 7_000;

describe("a run longer than its job's expiry", () => {
  let member: TestUser;
  let worker: RunWorker | null = null;
  const previous = process.env.ENVACE_RUN_JOB_EXPIRE_S;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    await registerCheckedNode(prisma);
    process.env.ENVACE_RUN_JOB_EXPIRE_S = String(EXPIRE_S);
  });
  afterEach(async () => {
    await worker?.stop();
    worker = null;
  });
  afterAll(async () => {
    if (previous === undefined) delete process.env.ENVACE_RUN_JOB_EXPIRE_S;
    else process.env.ENVACE_RUN_JOB_EXPIRE_S = previous;
    const { getBoss } = await import("../../server/lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("holds its slot (WORKER_CONCURRENCY 1) and its job is neither failed nor retried", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const spans = new Map<string, { start: number; end?: number }>();
    const long: Executor = async (ctx) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      spans.set(ctx.runId, { start: Date.now() });
      try {
        const until = Date.now() + RUN_MS;
        let step = 0;
        while (Date.now() < until) {
          await new Promise((r) => setTimeout(r, 500));
          if (ctx.signal.aborted) throw ctx.signal.reason;
          await ctx.progress(++step, RUN_MS / 500);
        }
      } finally {
        inFlight--;
        spans.get(ctx.runId)!.end = Date.now();
      }
    };
    worker = new RunWorker({ prisma, databaseUrl, selectExecutor: () => long, concurrency: 1, heartbeatMs: 200, sweepMs: 500, pollingIntervalSeconds: 0.5, workerId: "w-long", logger: () => {} });
    await worker.start();
    const caller = await callerFor(member.headers);
    const first = await caller.runs.create({ name: "long-1", config: {} });
    await eventually(async () => (spans.has(first.id) ? true : null), 15_000, "the first run to start");
    const second = await caller.runs.create({ name: "long-2", config: {} });

    for (const run of [first, second]) {
      const done = await eventually(async () => {
        const r = await caller.runs.get({ id: run.id });
        return r.status === "succeeded" || r.status === "failed" ? r : null;
      }, 40_000, `run ${run.name} to finish`);
      expect(done.status).toBe("succeeded");
      expect(done.attempts).toBe(1);
    }
    expect(maxInFlight).toBe(1);
    // The second run waited for the slot: it started only after the first ended, well past the expiry.
    const a = spans.get(first.id)!;
    const b = spans.get(second.id)!;
    expect(a.end! - a.start).toBeGreaterThan(EXPIRE_S * 1000 * 2);
    expect(b.start).toBeGreaterThanOrEqual(a.end!);

    const jobs = await prisma.$queryRawUnsafe<{ runId: string; state: string; retryCount: number }[]>(
      `select data->>'runId' as "runId", state::text as state, retry_count as "retryCount" from pgboss.job where name = 'envace-run' and data->>'runId' = any($1::text[])`,
      [first.id, second.id],
    );
    expect(jobs.sort((x, y) => (x.runId === first.id ? -1 : y.runId === first.id ? 1 : 0))).toEqual([
      { runId: first.id, state: "completed", retryCount: 0 },
      { runId: second.id, state: "completed", retryCount: 0 },
    ]);
  });
});
