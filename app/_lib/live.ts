"use client";
/**
 * Live updates. The server's change signals (/api/events, see contracts/events.ts) arrive on one
 * EventSource per tab, and this module turns each into React Query invalidations of exactly the
 * queries it made stale: active ones refetch, inactive ones refetch when next shown. Views subscribe
 * to nothing themselves; a signed-in page turns the stream on with `useLiveUpdates` (RequireUser does).
 */
import { useQueryClient, type Query, type QueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { changeEventSchema, type ChangeEvent } from "@/contracts/events";

export type { ChangeEvent };

/** One kind of query a change makes stale. */
export interface LiveRoute {
  /** The tRPC procedure, e.g. "runs.get". */
  path: string;
  /** The input field that must equal the event's id; absent: every query of the procedure. */
  match?: "id" | "runId";
  /** A burst of signals within this window costs one refetch (charts and lists need not redraw on every rollout). */
  delayMs: number;
  /**
   * Every open tab hears a signal at the same instant; each waits a further share of this (its own fixed
   * share, the same for all its routes, so one tab's refetches still go out together) so that a hundred
   * open pages do not all ask the server at once.
   */
  spreadMs: number;
}

/** What each change makes stale. */
export const liveRoutes: Record<ChangeEvent["t"], LiveRoute[]> = {
  run: [
    { path: "runs.get", match: "id", delayMs: 0, spreadMs: 500 },
    { path: "runs.list", delayMs: 300, spreadMs: 1500 },
    // A study's page follows its runs; a signal names the run, not its study.
    { path: "studies.get", delayMs: 500, spreadMs: 1500 },
    { path: "studies.list", delayMs: 500, spreadMs: 1500 },
    // A training run's page lists its checkpoints' evaluations: any run's change may be one of them.
    { path: "runs.checkpointEvaluations", delayMs: 300, spreadMs: 1500 },
  ],
  step: [
    { path: "metrics.keys", match: "runId", delayMs: 2000, spreadMs: 1500 },
    { path: "metrics.series", match: "runId", delayMs: 2000, spreadMs: 1500 },
    { path: "trajectories.list", match: "runId", delayMs: 2000, spreadMs: 1500 },
    { path: "trajectories.facets", match: "runId", delayMs: 2000, spreadMs: 1500 },
    { path: "trajectories.errored", match: "runId", delayMs: 2000, spreadMs: 1500 },
    { path: "runs.worldModel", match: "runId", delayMs: 2000, spreadMs: 1500 },
    { path: "runs.bfcl", match: "runId", delayMs: 2000, spreadMs: 1500 },
    { path: "runs.finmcp", match: "runId", delayMs: 2000, spreadMs: 1500 },
    { path: "runs.evaluations", match: "id", delayMs: 2000, spreadMs: 1500 },
    { path: "studies.keys", delayMs: 2000, spreadMs: 1500 },
    { path: "studies.series", delayMs: 2000, spreadMs: 1500 },
    { path: "studies.table", delayMs: 2000, spreadMs: 1500 },
    { path: "runs.passes", match: "runId", delayMs: 2000, spreadMs: 1500 },
  ],
  log: [{ path: "runs.logs", match: "runId", delayMs: 0, spreadMs: 500 }],
  checkpoint: [{ path: "runs.checkpoints", match: "runId", delayMs: 0, spreadMs: 500 }],
  node: [
    { path: "nodes.list", delayMs: 0, spreadMs: 500 },
    { path: "runs.nodes", delayMs: 0, spreadMs: 500 },
  ],
};

/** How long a tab whose share of the spread is `share` (0..1) waits before refetching what `route` covers. */
export function liveDelayMs(route: LiveRoute, share: number): number {
  return Math.round(route.delayMs + share * route.spreadMs);
}

/** Whether a tRPC query key ([path segments, { input }]) belongs to `route` for an event about `id`. */
export function routeMatches(queryKey: readonly unknown[], route: LiveRoute, id: string): boolean {
  const [path, opts] = queryKey as [unknown, { input?: Record<string, unknown> } | undefined];
  if (!Array.isArray(path) || path.join(".") !== route.path) return false;
  return route.match === undefined || opts?.input?.[route.match] === id;
}

/**
 * When one tab refetches what each signal made stale. Per (route, id) a burst of signals costs one
 * refetch (`LiveRoute.delayMs`); each tab waits its own share of `spreadMs` so that a crowd of tabs does
 * not ask at once; and a refetch joins one this tab already has scheduled if that one goes out no sooner
 * than the route's delay and no later than its own time, so the run row, log tail and checkpoints a
 * committed step changed (three signals, moments apart) cost this tab one batched request, not three.
 * Pure timing: what a refetch does is the caller's (`run`); the UI invalidates queries, bench:load sends
 * requests.
 */
export class RefetchSchedule {
  /** (route, id) keys with a refetch scheduled. */
  private readonly pending = new Set<string>();
  private flushes: { at: number; timer: ReturnType<typeof setTimeout>; jobs: (() => void)[] }[] = [];

  /** `share`: this tab's fixed share (0..1) of every route's spread. */
  constructor(private readonly share: number) {}

  /** A signal about `id` made `route` stale: `run()` once, when this tab's turn comes. */
  add(route: LiveRoute, id: string, run: () => void): void {
    const key = `${route.path} ${route.match ? id : "*"}`;
    if (this.pending.has(key)) return;
    const job = () => {
      this.pending.delete(key);
      run();
    };
    const delay = liveDelayMs(route, this.share);
    if (delay === 0) return job();
    this.pending.add(key);
    const now = Date.now();
    const due = now + delay;
    const earliest = now + route.delayMs;
    const joinable = this.flushes.find((f) => f.at >= earliest && f.at <= due);
    if (joinable) {
      joinable.jobs.push(job);
      return;
    }
    const flush = {
      at: due,
      jobs: [job],
      timer: setTimeout(() => {
        this.flushes = this.flushes.filter((f) => f !== flush);
        for (const j of flush.jobs) j();
      }, delay),
    };
    this.flushes.push(flush);
  }

  /** Drop everything scheduled (a resync covers it, or the tab is going away). */
  clear(): void {
    for (const f of this.flushes) clearTimeout(f.timer);
    this.flushes = [];
    this.pending.clear();
  }
}

/** Maps change events to invalidations on one QueryClient, on this tab's `RefetchSchedule`. */
export class LiveInvalidator {
  private readonly schedule: RefetchSchedule;

  constructor(
    private readonly queryClient: QueryClient,
    opts: { share?: number } = {},
  ) {
    this.schedule = new RefetchSchedule(opts.share ?? Math.random());
  }

  handle(event: ChangeEvent): void {
    for (const route of liveRoutes[event.t]) {
      this.schedule.add(route, event.id, () => {
        void this.queryClient.invalidateQueries({ predicate: (q: Query) => routeMatches(q.queryKey, route, event.id) });
      });
    }
  }

  /**
   * Signals were missed (the server's database connection was down, or this tab's stream reconnected):
   * every view refetches what it shows. Pending coalesced invalidations are covered by this one.
   */
  resync(): void {
    this.schedule.clear();
    void this.queryClient.invalidateQueries();
  }

  dispose(): void {
    this.schedule.clear();
  }
}

/** Parses one SSE message; anything else on the stream is ignored. */
export function parseChangeEvent(data: string): ChangeEvent | null {
  try {
    const parsed = changeEventSchema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

// One EventSource per tab, shared by every mounted user; one invalidator per QueryClient.
let source: EventSource | null = null;
const subscribers = new Map<QueryClient, { invalidator: LiveInvalidator; users: number }>();

function connect() {
  if (source || typeof window === "undefined") return;
  source = new EventSource("/api/events");
  source.onmessage = (msg) => {
    const event = parseChangeEvent(msg.data);
    if (event) for (const { invalidator } of subscribers.values()) invalidator.handle(event);
  };
  // The server lost its database connection and got it back (server/events.ts): signals were missed.
  source.addEventListener("resync", () => {
    for (const { invalidator } of subscribers.values()) invalidator.resync();
  });
  // EventSource reconnects by itself (a restarted web process, a network blip); what happened in between
  // sent no signal here.
  let opened = false;
  source.onopen = () => {
    if (opened) for (const { invalidator } of subscribers.values()) invalidator.resync();
    opened = true;
  };
}

function disconnectWhenUnused() {
  if (subscribers.size > 0 || !source) return;
  source.close();
  source = null;
}

/** Keep this tab's queries live while mounted (and `enabled`: signals need a signed-in user). */
export function useLiveUpdates(enabled = true): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!enabled) return;
    const entry = subscribers.get(queryClient) ?? { invalidator: new LiveInvalidator(queryClient), users: 0 };
    entry.users += 1;
    subscribers.set(queryClient, entry);
    connect();
    return () => {
      entry.users -= 1;
      if (entry.users === 0) {
        entry.invalidator.dispose();
        subscribers.delete(queryClient);
        disconnectWhenUnused();
      }
    };
  }, [enabled, queryClient]);
}
