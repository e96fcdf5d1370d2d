/**
 * A node's request limit (`openai.maxConcurrency`) across every worker process of the installation: each
 * request in flight holds a lease row in `node_slot_lease`. A lease is taken under a transaction-scoped
 * advisory lock per node (expired leases swept, live ones counted, one inserted if there is room), renewed
 * by its holder every `renewMs` while the request runs, deleted when it ends, and lapses `ttlMs` after a
 * holder that died stopped renewing. Within a process the waiters queue in order and only the head one
 * polls the database, so a full node costs one query per `pollMs` per process, not one per waiter.
 *
 * While the database is away requests go on under the process's own limit alone (the in-process slots of
 * lib/clients/openai-chat.ts): a run rides out an outage rather than stalling on its judge's limit.
 */
import os from "node:os";
import crypto from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { isDatabaseUnavailable } from "../../lib/db-errors";
import type { SharedSlots } from "../../lib/clients/openai-chat";

export interface NodeSlotOptions {
  holder?: string;
  /** A lease whose holder stopped renewing lapses after this long (default 30 s). */
  ttlMs?: number;
  /** How often a holder renews its leases (default 10 s). */
  renewMs?: number;
  /** How often the head waiter asks again while the node is full (default 100 ms, with jitter). */
  pollMs?: number;
  logger?: (message: string) => void;
}

interface Waiter {
  resolve: (release: () => void) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
}

export class NodeSlotLeases {
  readonly holder: string;
  private readonly ttlS: number;
  private readonly renewMs: number;
  private readonly pollMs: number;
  private readonly held = new Set<string>();
  private readonly queues = new Map<string, { limit: number; waiters: Waiter[]; pumping: boolean; wake: (() => void) | null }>();
  private renewTimer: NodeJS.Timeout | null = null;
  private readonly releasing = new Set<Promise<unknown>>();
  private degraded = false;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly opts: NodeSlotOptions = {},
  ) {
    this.holder = opts.holder ?? `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString("hex")}`;
    this.ttlS = (opts.ttlMs ?? 30_000) / 1000;
    this.renewMs = opts.renewMs ?? 10_000;
    this.pollMs = opts.pollMs ?? 100;
  }

  /** The shared slots of one node, for its chat clients. */
  forNode(nodeName: string, limit: number): SharedSlots {
    return { acquire: (signal) => this.acquire(nodeName, limit, signal) };
  }

  acquire(nodeName: string, limit: number, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    let q = this.queues.get(nodeName);
    if (!q) this.queues.set(nodeName, (q = { limit, waiters: [], pumping: false, wake: null }));
    q.limit = limit;
    const queue = q;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      signal?.addEventListener(
        "abort",
        () => {
          const i = queue.waiters.indexOf(waiter);
          if (i >= 0) {
            queue.waiters.splice(i, 1);
            reject(abortReason(signal));
          }
        },
        { once: true },
      );
      queue.waiters.push(waiter);
      void this.pump(nodeName);
    });
  }

  /** On shutdown: wait for the releases under way, then drop whatever this process still holds. */
  async close(): Promise<void> {
    await Promise.all(this.releasing);
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
    this.held.clear();
    await this.prisma.$executeRaw`delete from node_slot_lease where holder = ${this.holder}`.catch(() => {});
  }

  /** Leases held by this process now (tests, diagnostics). */
  heldCount(): number {
    return this.held.size;
  }

  /** Serves one node's waiters in order while any wait. */
  private async pump(nodeName: string): Promise<void> {
    const q = this.queues.get(nodeName)!;
    if (q.pumping) return; // the running pump serves it in turn
    q.pumping = true;
    try {
      let misses = 0;
      while (q.waiters.length) {
        let id: string | null;
        try {
          id = await this.tryTake(nodeName, q.limit);
          this.degraded = false;
        } catch (err) {
          if (!isDatabaseUnavailable(err)) {
            for (const w of q.waiters.splice(0)) w.reject(err);
            return;
          }
          if (!this.degraded) this.opts.logger?.(`node limits: database unavailable; requests go on under this process's own limit until it is back`);
          this.degraded = true;
          q.waiters.shift()!.resolve(() => {});
          continue;
        }
        const head = q.waiters.shift();
        if (id && head) {
          misses = 0;
          this.hold(id);
          head.resolve(once(() => this.release(nodeName, id!)));
          continue;
        }
        if (id) void this.release(nodeName, id); // its waiter gave up meanwhile
        if (head) q.waiters.unshift(head);
        if (!id) {
          misses++;
          const wait = Math.min(this.pollMs * 2 ** Math.min(misses - 1, 2), 1000) * (0.5 + Math.random());
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, wait);
            function done() {
              clearTimeout(timer);
              resolve();
            }
            q.wake = done;
          });
          q.wake = null;
        }
      }
    } finally {
      q.pumping = false;
    }
  }

  private async tryTake(nodeName: string, limit: number): Promise<string | null> {
    const key = `envace:node-slot:${nodeName}`;
    const [, , rows] = await this.prisma.$transaction([
      // One taker per node at a time: the count below and the insert see every lease committed before.
      this.prisma.$queryRaw`select 1 as locked from (select pg_advisory_xact_lock(hashtext(${key}))) l`,
      this.prisma.$executeRaw`delete from node_slot_lease where "nodeName" = ${nodeName} and "expiresAt" < now()`,
      this.prisma.$queryRaw<{ id: string }[]>`
        insert into node_slot_lease (id, "nodeName", holder, "expiresAt")
        select gen_random_uuid()::text, ${nodeName}, ${this.holder}, now() + make_interval(secs => ${this.ttlS})
        where (select count(*) from node_slot_lease where "nodeName" = ${nodeName}) < ${limit}
        returning id`,
    ]);
    return (rows as { id: string }[])[0]?.id ?? null;
  }

  private hold(id: string) {
    this.held.add(id);
    this.renewTimer ??= setInterval(() => void this.renew(), this.renewMs);
    this.renewTimer.unref();
  }

  private async release(nodeName: string, id: string): Promise<void> {
    this.held.delete(id);
    if (!this.held.size && this.renewTimer) {
      clearInterval(this.renewTimer);
      this.renewTimer = null;
    }
    // A lease that cannot be deleted now lapses at its expiry.
    const gone = this.prisma.$executeRaw`delete from node_slot_lease where id = ${id}`.catch(() => {});
    this.releasing.add(gone);
    await gone;
    this.releasing.delete(gone);
    this.queues.get(nodeName)?.wake?.(); // a slot of ours is free: the head waiter asks at once
  }

  private async renew(): Promise<void> {
    if (!this.held.size) return;
    await this.prisma.$executeRaw`
      update node_slot_lease set "expiresAt" = now() + make_interval(secs => ${this.ttlS})
      where holder = ${this.holder}`.catch(() => {});
  }
}

const byClient = new WeakMap<PrismaClient, NodeSlotLeases>();

/** The process's leases on this database (one holder per process). */
export function nodeSlotLeases(prisma: PrismaClient, opts?: NodeSlotOptions): NodeSlotLeases {
  let leases = byClient.get(prisma);
  if (!leases) byClient.set(prisma, (leases = new NodeSlotLeases(prisma, opts)));
  return leases;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error("the call was cancelled");
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
