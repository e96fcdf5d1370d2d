/** The change-event → query-invalidation map, against a real QueryClient with observed queries. */
import { QueryClient, QueryObserver, type QueryKey } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LiveInvalidator, RefetchSchedule, liveDelayMs, liveRoutes, parseChangeEvent, routeMatches } from "./live";

const RUN_A = "11111111-1111-4111-8111-111111111111";
const RUN_B = "22222222-2222-4222-8222-222222222222";

/** A tRPC query key as @trpc/tanstack-react-query builds it. */
const trpcKey = (path: string, input?: Record<string, unknown>, type: "query" | "infinite" = "query"): QueryKey => [path.split("."), { ...(input ? { input } : {}), type }];

describe("live updates", () => {
  let qc: QueryClient;
  let live: LiveInvalidator;
  const observers: (() => void)[] = [];

  /** A mounted query that counts its fetches (the first one happens on mount). */
  function mounted(queryKey: QueryKey) {
    const counter = { fetches: 0 };
    const observer = new QueryObserver(qc, { queryKey, queryFn: async () => ++counter.fetches, staleTime: Infinity });
    observers.push(observer.subscribe(() => {}));
    return counter;
  }

  beforeEach(() => {
    vi.useFakeTimers();
    qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    live = new LiveInvalidator(qc, { share: 0 }); // the first tab of a crowd: no spread
  });
  afterEach(() => {
    observers.splice(0).forEach((unsubscribe) => unsubscribe());
    live.dispose();
    qc.clear();
    vi.useRealTimers();
  });

  it("refetches nothing without a signal", async () => {
    const page = mounted(trpcKey("runs.get", { id: RUN_A }));
    const charts = mounted(trpcKey("metrics.series", { runId: RUN_A, keys: ["reward/mean"] }));
    await vi.advanceTimersByTimeAsync(60_000);
    expect([page.fetches, charts.fetches]).toEqual([1, 1]);
  });

  it("a run change refreshes that run's page at once and the runs list once per burst", async () => {
    const pageA = mounted(trpcKey("runs.get", { id: RUN_A }));
    const pageB = mounted(trpcKey("runs.get", { id: RUN_B }));
    const list = mounted(trpcKey("runs.list", { limit: 50 }, "infinite"));
    const charts = mounted(trpcKey("metrics.keys", { runId: RUN_A }));
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 5; i++) live.handle({ t: "run", id: RUN_A, status: "running" });
    await vi.advanceTimersByTimeAsync(0);
    expect(pageA.fetches).toBeGreaterThan(1);
    expect(list.fetches).toBe(1);
    await vi.advanceTimersByTimeAsync(300);
    expect(list.fetches).toBe(2);
    // Neither another run's page nor the charts (a run row change is not a committed step).
    expect([pageB.fetches, charts.fetches]).toEqual([1, 1]);
  });

  it("a committed step refreshes that run's charts and trajectories once per 2 s burst", async () => {
    const series = mounted(trpcKey("metrics.series", { runId: RUN_A, keys: ["reward/mean"] }));
    const trajectories = mounted(trpcKey("trajectories.list", { runId: RUN_A, limit: 100 }, "infinite"));
    const facets = mounted(trpcKey("trajectories.facets", { runId: RUN_A }));
    const other = mounted(trpcKey("metrics.series", { runId: RUN_B, keys: ["reward/mean"] }));
    const page = mounted(trpcKey("runs.get", { id: RUN_A }));
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 10; i++) live.handle({ t: "step", id: RUN_A });
    await vi.advanceTimersByTimeAsync(1999);
    expect(series.fetches).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect([series.fetches, trajectories.fetches, facets.fetches]).toEqual([2, 2, 2]);
    expect([other.fetches, page.fetches]).toEqual([1, 1]);
  });

  it("log lines, checkpoints and node changes refresh their own views", async () => {
    const logs = mounted(trpcKey("runs.logs", { runId: RUN_A }));
    const checkpoints = mounted(trpcKey("runs.checkpoints", { runId: RUN_A }));
    const nodes = mounted(trpcKey("nodes.list"));
    const runNodes = mounted(trpcKey("runs.nodes", { runId: RUN_B }));
    await vi.advanceTimersByTimeAsync(0);
    live.handle({ t: "log", id: RUN_A });
    await vi.advanceTimersByTimeAsync(0);
    expect([logs.fetches, checkpoints.fetches, nodes.fetches]).toEqual([2, 1, 1]);
    live.handle({ t: "checkpoint", id: RUN_A });
    live.handle({ t: "node", id: "some-node" });
    await vi.advanceTimersByTimeAsync(0);
    expect([logs.fetches, checkpoints.fetches, nodes.fetches, runNodes.fetches]).toEqual([2, 2, 2, 2]);
  });

  it("a resync (signals were missed) refreshes every view at once, including pending coalesced ones", async () => {
    const page = mounted(trpcKey("runs.get", { id: RUN_A }));
    const list = mounted(trpcKey("runs.list", { limit: 50 }, "infinite"));
    const nodes = mounted(trpcKey("nodes.list"));
    await vi.advanceTimersByTimeAsync(0);
    live.handle({ t: "run", id: RUN_B, status: "running" }); // a list refetch waiting in its 300 ms window
    live.resync();
    await vi.advanceTimersByTimeAsync(0);
    expect([page.fetches, list.fetches, nodes.fetches]).toEqual([2, 2, 2]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(list.fetches).toBe(2); // the coalesced one was folded into the resync
  });

  it("spreads a crowd of tabs: each waits its own share of the spread, and one tab's refetches go out together", async () => {
    const late = new LiveInvalidator(qc, { share: 1 }); // the last tab of a crowd
    const page = mounted(trpcKey("runs.get", { id: RUN_A }));
    const logs = mounted(trpcKey("runs.logs", { runId: RUN_A }));
    await vi.advanceTimersByTimeAsync(0);
    late.handle({ t: "run", id: RUN_A });
    late.handle({ t: "log", id: RUN_A });
    await vi.advanceTimersByTimeAsync(499);
    expect([page.fetches, logs.fetches]).toEqual([1, 1]);
    await vi.advanceTimersByTimeAsync(1);
    expect([page.fetches, logs.fetches]).toEqual([2, 2]);
    late.dispose();
    expect(liveDelayMs(liveRoutes.step[0]!, 0.5)).toBe(2750);
  });

  it("joins a tab's refetches: the signals of one committed step, moments apart, cost one batch", async () => {
    const late = new LiveInvalidator(qc, { share: 1 });
    const page = mounted(trpcKey("runs.get", { id: RUN_A }));
    const logs = mounted(trpcKey("runs.logs", { runId: RUN_A }));
    const checkpoints = mounted(trpcKey("runs.checkpoints", { runId: RUN_A }));
    const charts = mounted(trpcKey("metrics.series", { runId: RUN_A, keys: ["reward/mean"] }));
    await vi.advanceTimersByTimeAsync(0);
    late.handle({ t: "run", id: RUN_A }); // due at 500
    late.handle({ t: "step", id: RUN_A }); // charts: not before 2000, so they cannot join
    await vi.advanceTimersByTimeAsync(60);
    late.handle({ t: "log", id: RUN_A }); // due at 560: joins the refetch at 500
    await vi.advanceTimersByTimeAsync(60);
    late.handle({ t: "checkpoint", id: RUN_A }); // due at 620: joins too
    await vi.advanceTimersByTimeAsync(379);
    expect([page.fetches, logs.fetches, checkpoints.fetches]).toEqual([1, 1, 1]);
    await vi.advanceTimersByTimeAsync(1);
    expect([page.fetches, logs.fetches, checkpoints.fetches, charts.fetches]).toEqual([2, 2, 2, 1]);
    // After it went out, a new signal waits for its own turn again.
    late.handle({ t: "log", id: RUN_A });
    await vi.advanceTimersByTimeAsync(499);
    expect(logs.fetches).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(logs.fetches).toBe(3);
    await vi.advanceTimersByTimeAsync(3500 - 1000);
    expect(charts.fetches).toBe(2);
    late.dispose();
  });

  it("never joins a refetch that would go out before a route's own delay", () => {
    vi.setSystemTime(0);
    const schedule = new RefetchSchedule(1);
    const fired: string[] = [];
    const at = () => `${Date.now()}`;
    schedule.add(liveRoutes.run[0]!, RUN_A, () => fired.push(`runs.get@${at()}`)); // 500
    schedule.add(liveRoutes.run[1]!, RUN_A, () => fired.push(`runs.list@${at()}`)); // due 1800, not before 300: joins the one at 500
    vi.advanceTimersByTime(100);
    schedule.add(liveRoutes.step[0]!, RUN_A, () => fired.push(`metrics.keys@${at()}`)); // 2100 + 1500 = 3600, nothing to join
    vi.advanceTimersByTime(4000);
    expect(fired).toEqual(["runs.get@500", "runs.list@500", "metrics.keys@3600"]);
    schedule.clear();
  });

  it("marks queries no view shows as stale without fetching them", async () => {
    await qc.prefetchQuery({ queryKey: trpcKey("runs.get", { id: RUN_A }), queryFn: async () => 1 });
    live.handle({ t: "run", id: RUN_A });
    await vi.advanceTimersByTimeAsync(0);
    expect(qc.getQueryState(trpcKey("runs.get", { id: RUN_A }))).toMatchObject({ isInvalidated: true, dataUpdateCount: 1 });
  });

  it("reads only well-formed signals and matches keys by procedure and input", () => {
    expect(parseChangeEvent('{"t":"step","id":"x"}')).toEqual({ t: "step", id: "x" });
    expect(parseChangeEvent('{"t":"heartbeat","id":"x"}')).toBeNull();
    expect(parseChangeEvent("not json")).toBeNull();
    expect(routeMatches(trpcKey("runs.get", { id: RUN_A }), { path: "runs.get", match: "id", delayMs: 0, spreadMs: 0 }, RUN_A)).toBe(true);
    expect(routeMatches(trpcKey("runs.get", { id: RUN_A }), { path: "runs.get", match: "id", delayMs: 0, spreadMs: 0 }, RUN_B)).toBe(false);
    expect(routeMatches(trpcKey("runs.getx", { id: RUN_A }), { path: "runs.get", delayMs: 0, spreadMs: 0 }, RUN_A)).toBe(false);
  });
});
