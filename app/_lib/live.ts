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
  ],
  step: [
    { path: "metrics.keys", match: "runId", delayMs: 2000, spreadMs: 1500 },
    { path: "metrics.series", match: "runId", delayMs: 2000, spreadMs: 1500 },
    { path: "trajectories.list", match: "runId", delayMs: 2000, spreadMs: 1500 },
    { path: "trajectories.facets", match: "runId", delayMs: 2000, spreadMs: 1500 },
    { path: "runs.worldModel", match: "runId", delayMs: 2000, spreadMs: 1500 },
    { path: "runs.bfcl", match: "runId", delayMs: 2000, spreadMs: 1500 },
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

/** Maps change events to invalidations on one QueryClient, coalescing bursts per (route, id). */
export class LiveInvalidator {
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  /** This tab's share of every route's spread (see `LiveRoute.spreadMs`). */
  private readonly share: number;

  constructor(
    private readonly queryClient: QueryClient,
    opts: { share?: number } = {},
  ) {
    this.share = opts.share ?? Math.random();
  }

  handle(event: ChangeEvent): void {
    for (const route of liveRoutes[event.t]) {
      const scope = route.match ? event.id : "*";
      const key = `${route.path} ${scope}`;
      if (this.pending.has(key)) continue;
      const invalidate = () => {
        this.pending.delete(key);
        void this.queryClient.invalidateQueries({ predicate: (q: Query) => routeMatches(q.queryKey, route, event.id) });
      };
      const delay = liveDelayMs(route, this.share);
      if (delay === 0) invalidate();
      else this.pending.set(key, setTimeout(invalidate, delay));
    }
  }

  /**
   * Signals were missed (the server's database connection was down, or this tab's stream reconnected):
   * every view refetches what it shows. Pending coalesced invalidations are covered by this one.
   */
  resync(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    void this.queryClient.invalidateQueries();
  }

  dispose(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
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
