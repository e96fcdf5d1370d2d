/**
 * Live updates end to end against real Postgres: the database triggers (prisma/migrations), the
 * server's LISTEN fan-out (server/events.ts) and the browser's invalidation map (app/_lib/live.ts)
 * driving a real QueryClient with mounted queries. The worker's own writes (worker/runner) make the
 * changes: a heartbeat alone must signal nothing and refetch nothing.
 */
import { QueryClient, QueryObserver, type QueryKey } from "@tanstack/react-query";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../contracts/events";
import { getChangeFeed } from "../../server/events";
import { eventually, prisma, resetDatabase, signUp } from "../../test/helpers";
import type { StepResult } from "../../worker/engine/step";
import { appendLog, claimRun, heartbeat, reportProgress } from "../../worker/runner/lifecycle";
import { persistStep } from "../../worker/runner/persist";
import { LiveInvalidator } from "./live";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const trpcKey = (path: string, input?: Record<string, unknown>, type: "query" | "infinite" = "query"): QueryKey => [path.split("."), { ...(input ? { input } : {}), type }];

describe("live updates against real Postgres", () => {
  const events: ChangeEvent[] = [];
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const live = new LiveInvalidator(qc, { share: 0 });
  const unsubscribers: (() => void)[] = [];
  let runId: string;
  const workerId = "live-test-worker";

  /** A mounted view's query that counts how often it fetched. */
  function mounted(queryKey: QueryKey) {
    const counter = { fetches: 0 };
    const observer = new QueryObserver(qc, { queryKey, queryFn: async () => ++counter.fetches, staleTime: Infinity });
    unsubscribers.push(observer.subscribe(() => {}));
    return counter;
  }

  beforeAll(async () => {
    await resetDatabase();
    const user = await signUp();
    const emitter = getChangeFeed();
    expect(await emitter.whenConnected()).toBe(true);
    emitter.on("change", (e: ChangeEvent) => {
      if (e.id === runId || e.t === "node") {
        events.push(e);
        live.handle(e);
      }
    });
    const run = await prisma.run.create({
      data: { name: "live", kind: "train", status: "queued", config: {}, configVersion: 1, paradigm: "rehearse", policyNode: "embedded", tags: [], totalSteps: 3, createdById: user.id },
      select: { id: true },
    });
    runId = run.id;
    expect(await claimRun(prisma, runId, workerId)).not.toBeNull();
    await eventually(async () => events.some((e) => e.t === "run" && e.status === "running"), 10_000, "the claim's signal");
  });
  afterAll(() => {
    unsubscribers.forEach((u) => u());
    live.dispose();
  });

  it("a heartbeat alone causes no notification and no refetch", async () => {
    const page = mounted(trpcKey("runs.get", { id: runId }));
    const list = mounted(trpcKey("runs.list", { limit: 50 }, "infinite"));
    const charts = mounted(trpcKey("metrics.series", { runId, keys: ["reward/mean"] }));
    await eventually(async () => page.fetches === 1 && list.fetches === 1 && charts.fetches === 1, 5_000, "the first fetches");
    await sleep(500); // the claim's signal may still be coalescing into a list refetch
    events.length = 0;
    const before = [page.fetches, list.fetches, charts.fetches];

    for (let i = 0; i < 5; i++) {
      expect(await heartbeat(prisma, runId, workerId)).toEqual({ cancelRequested: false });
      await sleep(200);
    }
    await sleep(1000); // longer than any coalescing window but the charts' (they refetch on steps only)
    expect(events).toEqual([]);
    expect([page.fetches, list.fetches, charts.fetches]).toEqual(before);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).heartbeatAt).not.toBeNull();

    // Progress is something the page shows: one signal, and the page and the list refetch.
    await reportProgress(prisma, runId, workerId, { step: 1, total: 3, etaSeconds: 20 });
    await eventually(async () => page.fetches === before[0]! + 1 && list.fetches === before[1]! + 1, 5_000, "the progress refetch");
    expect(events).toEqual([{ t: "run", id: runId, status: "running" }]);
    expect(charts.fetches).toBe(before[2]);
  });

  it("a committed step, a checkpoint and log lines signal their own views", async () => {
    const charts = mounted(trpcKey("metrics.keys", { runId }));
    const checkpoints = mounted(trpcKey("runs.checkpoints", { runId }));
    const logs = mounted(trpcKey("runs.logs", { runId }));
    await eventually(async () => charts.fetches === 1 && checkpoints.fetches === 1 && logs.fetches === 1, 5_000, "the first fetches");
    events.length = 0;

    const result: StepResult = { kind: "train", stepIndex: 1, trajectories: [], metrics: { "reward/mean": 0.5 } };
    await persistStep(prisma, {
      runId,
      workerId,
      result,
      phase: "train",
      startedAt: new Date(),
      statePath: "state/1",
      checkpoint: { nodeName: "embedded", statePath: "state/1", samplerPath: "sampler/1" },
      progress: { step: 1, total: 3, etaSeconds: 10 },
    });
    await appendLog(prisma, runId, "info", "step 1/3 committed");
    await eventually(async () => checkpoints.fetches === 2 && logs.fetches === 2 && charts.fetches === 2, 10_000, "the step's refetches");
    expect(events.map((e) => e.t).sort()).toEqual(["checkpoint", "log", "run", "step"]);
  });

  it("node health signals only when it changes", async () => {
    const nodes = mounted(trpcKey("nodes.list"));
    const node = await prisma.node.create({ data: { name: "live-node", kind: "openai", baseUrl: "http://127.0.0.1:9" }, select: { id: true } });
    await eventually(async () => events.some((e) => e.t === "node" && e.id === node.id), 5_000, "the new node's signal");
    events.length = 0;
    const fetched = nodes.fetches;

    await prisma.node.update({ where: { id: node.id }, data: { health: "unknown" } }); // unchanged: only updatedAt moves
    await sleep(500);
    expect(events).toEqual([]);
    await prisma.node.update({ where: { id: node.id }, data: { health: "unhealthy", healthDetail: "connection refused" } });
    await eventually(async () => nodes.fetches > fetched, 5_000, "the health refetch");
    await prisma.node.delete({ where: { id: node.id } });
    await eventually(async () => events.length === 2, 5_000, "the deletion's signal");
    expect(events).toEqual([{ t: "node", id: node.id }, { t: "node", id: node.id }]);
  });
});
