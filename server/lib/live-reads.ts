/**
 * Reads that live views refetch after a change signal, shared by every caller of this web process.
 *
 * When a step commits, every open page of that run is told so at the same moment (server/events.ts) and
 * asks for the same charts, log tail and run row; a hundred viewers would cost a hundred identical
 * queries. Here the first request loads the result and every identical request (same procedure, same
 * input) shares it — in flight and afterwards — until a change signal about what it shows makes it
 * stale. Results never depend on who asks (the reads cached here are the same for every signed-in
 * caller; authorization happens before, per request).
 *
 * Staleness: an entry is dropped the moment a matching signal arrives, before the signal reaches any
 * client (emit is synchronous; a client's refetch comes later over the network), so a refetch caused by
 * a signal never gets a result from before it. Entries also expire after `MAX_AGE_MS`, bounding what a
 * lost signal could leave behind; while the change feed is not connected nothing is shared at all.
 */
import superjson from "superjson";
import type { ChangeEvent } from "../../contracts/events";
import { getChangeFeed } from "../events";
import { splicePlaceholder } from "./spliced-json";

/** What makes an entry stale: a signal of this type about this id ("*": about any id). */
export type Topic = `${ChangeEvent["t"]}:${string}`;

export const MAX_AGE_MS = 3000;
const MAX_ENTRIES = 1000;

interface Entry {
  value: Promise<unknown>;
  topics: Topic[];
  expires: number;
}

/** The change feed (server/events.ts ChangeFeed): "change", "up"/"down" (LISTEN state), "resync" (after a reconnect). */
interface Feed {
  connected: boolean;
  on(event: "change", listener: (e: ChangeEvent) => void): unknown;
  on(event: string, listener: () => void): unknown;
}

const globalForReads = globalThis as unknown as { __envaceLiveReads?: LiveReads };

export class LiveReads {
  private entries = new Map<string, Entry>();
  private connected = false;
  hits = 0;
  misses = 0;

  /** Subscribe to the change feed; nothing is shared before, nor while its LISTEN connection is down. */
  attach(feed: Feed): void {
    feed.on("change", (e: ChangeEvent) => this.invalidate(e));
    // Signals sent while the feed was down are lost: forget everything on every change of state.
    for (const name of ["resync", "down", "up"]) feed.on(name, () => this.clear());
    feed.on("down", () => (this.connected = false));
    feed.on("up", () => (this.connected = true));
    this.connected = feed.connected;
  }

  read<T>(procedure: string, input: unknown, topics: Topic[], load: () => Promise<T>): Promise<T> {
    if (!this.connected) return load();
    const key = `${procedure} ${JSON.stringify(input ?? null)}`;
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) {
      this.hits++;
      return hit.value as Promise<T>;
    }
    this.misses++;
    const value = load();
    const entry: Entry = { value, topics, expires: now + MAX_AGE_MS };
    this.entries.delete(key);
    this.entries.set(key, entry);
    // A failed load is not shared beyond the requests already waiting on it.
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  invalidate(event: ChangeEvent): void {
    const exact: Topic = `${event.t}:${event.id}`;
    const any: Topic = `${event.t}:*`;
    for (const [key, entry] of this.entries) {
      if (entry.topics.includes(exact) || entry.topics.includes(any)) this.entries.delete(key);
    }
  }

  clear(): void {
    this.entries.clear();
  }

  /** Whether identical reads are shared now (attached to a connected change feed). */
  get sharing(): boolean {
    return this.connected;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** This process's shared reads, attached to its change feed on first use. */
export function liveReads(): LiveReads {
  if (!globalForReads.__envaceLiveReads) {
    const reads = new LiveReads();
    globalForReads.__envaceLiveReads = reads;
    reads.attach(getChangeFeed());
  }
  return globalForReads.__envaceLiveReads;
}

/** `load()`, shared with identical calls until a signal on one of `topics` (see the module comment). */
export function sharedRead<T>(procedure: string, input: unknown, topics: Topic[], load: () => Promise<T>): Promise<T> {
  return liveReads().read(procedure, input, topics, load);
}

/**
 * The same sharing as `sharedRead`, for a procedure with an `.output()` schema (the REST-exposed ones):
 * used as a tRPC middleware between `.input()` and `.output()`, it shares the procedure's result AFTER
 * output validation, so every caller gets the one validated object (one zod walk, and one superjson
 * walk through `sharedResultTransformer`) instead of a fresh copy each. A failed result is returned to
 * the callers already waiting on it and never kept.
 */
export async function shareResult<R extends { ok: boolean }>(procedure: string, input: unknown, topics: Topic[], next: () => Promise<R>): Promise<R> {
  try {
    return await liveReads().read(procedure, input, topics, async () => {
      const result = await next();
      if (!result.ok) throw new UnsharedFailure(result);
      return result;
    });
  } catch (err) {
    if (err instanceof UnsharedFailure) return err.result as R;
    throw err;
  }
}

class UnsharedFailure extends Error {
  constructor(readonly result: unknown) {
    super("procedure failed");
  }
}

/** Forget every shared read (after a change made through this process: its next read sees it at once). */
export function clearSharedReads(): void {
  globalForReads.__envaceLiveReads?.clear();
}

/**
 * superjson for tRPC, with the serialised form of a shared result made once: a hundred viewers getting
 * the same shared object (by identity, see `LiveReads.read`) cost one walk over its values, not a
 * hundred — and, inside an HTTP answer (server/lib/spliced-json.ts `withSplicing`), one JSON text too,
 * spliced into each body instead of tRPC stringifying the object again per request. Results are never
 * changed after they are returned, so identity is a safe key; anything not shared is a fresh object each
 * time and simply serialised (its cache entry dies with it).
 */
interface Serialised {
  out: ReturnType<typeof superjson.serialize>;
  /** Its JSON text, UTF-8, made the first time it goes into an HTTP answer. */
  json?: Uint8Array<ArrayBuffer>;
}
const serialised = new WeakMap<object, Serialised>();
const utf8 = new TextEncoder();
export const sharedResultTransformer = {
  serialize(value: unknown): unknown {
    if (value === null || typeof value !== "object") return superjson.serialize(value);
    let entry = serialised.get(value);
    if (!entry) {
      entry = { out: superjson.serialize(value) };
      serialised.set(value, entry);
    }
    const made = entry;
    return splicePlaceholder(() => (made.json ??= utf8.encode(JSON.stringify(made.out)))) ?? entry.out;
  },
  deserialize: superjson.deserialize.bind(superjson),
};
