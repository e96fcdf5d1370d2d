/**
 * The job runner: takes run jobs from pg-boss into a fixed number of slots (WORKER_CONCURRENCY), claims
 * each run exactly once and completes its job, executes it with a heartbeat (which also carries cancel
 * requests) while the slot stays taken for as long as the run goes on, and sweeps runs orphaned by dead
 * workers back into the queue so they resume.
 *
 * Database outages of any length are ridden out (worker/runner/durable.ts): the run in flight keeps
 * going, its commits and its final status wait for the database, its log lines are queued; heartbeats,
 * the sweep and pg-boss's polling retry, each saying once that the database is away and once that it is
 * back. After an outage the worker's own runs have stale heartbeats: its sweep leaves them alone (it is
 * still running them), another worker's sweep may take them over, and then this one loses its claim at
 * the next fenced write and stops — the fencing is unchanged.
 */
import os from "node:os";
import crypto from "node:crypto";
import PgBoss from "pg-boss";
import type { PrismaClient } from "@prisma/client";
import { RUN_QUEUE, runJobOptions, runJobSchema } from "../../contracts/jobs";
import { parseRunConfig, type RunConfig } from "../../contracts/run-config";
import { appendLog, cancelOrphanedRuns, claimRun, finishRun, heartbeat, reportProgress, takeOrphanedRuns } from "./lifecycle";
import { CancelledError, type Executor, type RunContext } from "./context";
import { OutageNotice, RunJournal, whileDatabaseDown } from "./durable";
import { ClaimLostError } from "./persist";
import { nodeSlotLeases } from "./node-slots";
import { isDatabaseUnavailable } from "../../lib/db-errors";
import { archiveExpiredRuns } from "../../lib/turn-archive";

export interface WorkerOptions {
  prisma: PrismaClient;
  databaseUrl: string;
  /** Picks the executor for a run config. */
  selectExecutor: (config: RunConfig) => Executor;
  concurrency?: number;
  heartbeatMs?: number;
  sweepMs?: number;
  /** How often the sweep looks for runs whose turn retention has passed (lib/turn-archive.ts); default 10 min. */
  retentionEveryMs?: number;
  pollingIntervalSeconds?: number;
  workerId?: string;
  logger?: (msg: string) => void;
}

export class RunWorker {
  readonly workerId: string;
  private boss: PgBoss;
  private sweepTimer?: NodeJS.Timeout;
  /** The retention pass in flight (archiving a big run takes minutes: never two at once, never blocking the sweep). */
  private retention?: Promise<void>;
  private lastRetention = 0;
  private active = new Map<string, AbortController>();
  private slots: Promise<void>[] = [];
  private stopped = false;
  /** Aborted by stop(): ends every wait for the database. */
  private stopping = new AbortController();
  /** pg-boss polling and the sweep: one line when the database goes away, one when it is back. */
  private outage: OutageNotice;

  constructor(private opts: WorkerOptions) {
    this.workerId = opts.workerId ?? `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString("hex")}`;
    this.boss = new PgBoss({ connectionString: opts.databaseUrl, max: 4 });
    this.outage = new OutageNotice("job queue and sweep", (m) => this.logger(m));
    // pg-boss reports its polling and maintenance failures here, once per poll while the database is away.
    this.boss.on("error", (err) => {
      if (!this.outage.failed(err)) this.logger(`pg-boss error: ${err.message}`);
    });
  }

  private logger(msg: string) {
    (this.opts.logger ?? ((m: string) => console.log(`[worker ${this.workerId}] ${m}`)))(msg);
  }

  async start() {
    await this.boss.start();
    await this.boss.createQueue(RUN_QUEUE);
    const concurrency = this.opts.concurrency ?? 2;
    // Our own slots rather than pg-boss's `work`: pg-boss gives a handler only the job's expiry, then fails
    // the job and polls again, so a run longer than that would free its slot (and be retried) while it goes on.
    for (let i = 0; i < concurrency; i++) this.slots.push(this.slot());
    // From here on nothing throws: the sweep retries on its timer.
    const sweep = () =>
      this.sweep().then(
        () => this.outage.ok(),
        (e) => {
          if (!this.outage.failed(e)) this.logger(`sweep failed: ${e.message}`);
        },
      );
    await sweep();
    this.sweepTimer = setInterval(sweep, this.opts.sweepMs ?? 10_000);
    this.logger(`started (concurrency ${concurrency})`);
  }

  /** One slot: take a job, hold the slot for as long as its run goes on, then take the next. */
  private async slot() {
    const pollMs = (this.opts.pollingIntervalSeconds ?? 1) * 1000;
    while (!this.stopped) {
      let job: PgBoss.Job<unknown> | undefined;
      try {
        [job] = await this.boss.fetch<unknown>(RUN_QUEUE, { batchSize: 1 });
      } catch (err) {
        if (!this.outage.failed(err)) this.logger(`taking a job failed: ${(err as Error).message}`);
      }
      if (!job) {
        await sleep(pollMs, this.stopping.signal);
        continue;
      }
      await this.handle(job);
    }
  }

  /** Stop taking jobs; in-flight runs are aborted and left for recovery unless `drain` is set. */
  async stop({ drain = false }: { drain?: boolean } = {}) {
    this.stopped = true;
    this.stopping.abort(new Error("worker stopping"));
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (!drain) for (const c of this.active.values()) c.abort(new Error("worker stopping"));
    await Promise.race([Promise.all(this.slots), sleep(drain ? 60_000 : 5_000)]);
    await this.boss.stop({ graceful: false, wait: true, timeout: 5_000 }).catch(() => {});
    await nodeSlotLeases(this.opts.prisma).close(); // this process's node leases, at once rather than at their expiry
  }

  private async sweep() {
    if (this.stopped) return;
    const own = [...this.active.keys()];
    await cancelOrphanedRuns(this.opts.prisma, own);
    const ids = await takeOrphanedRuns(this.opts.prisma, own);
    this.startRetentionPass();
    for (const runId of ids) {
      // The run is queued now: its job must follow even if the database drops in between.
      const wait = { signal: this.stopping.signal };
      await whileDatabaseDown(() => appendLog(this.opts.prisma, runId, "warn", "worker lost (no heartbeat); the run is queued again and will resume"), wait);
      await whileDatabaseDown(() => this.boss.send(RUN_QUEUE, { runId, reason: "recovered" }, runJobOptions()), wait);
      this.logger(`recovered orphaned run ${runId}`);
    }
  }

  /** Archives the turns of finished runs whose retainTurnsDays have passed, in the background. */
  private startRetentionPass() {
    if (this.retention || Date.now() - this.lastRetention < (this.opts.retentionEveryMs ?? 600_000)) return;
    this.lastRetention = Date.now();
    this.retention = archiveExpiredRuns(this.opts.prisma, { log: (m) => this.logger(m) })
      .then(
        () => {},
        (e) => {
          if (!this.outage.failed(e)) this.logger(`retention pass failed: ${(e as Error).message}`);
        },
      )
      .finally(() => (this.retention = undefined));
  }

  /**
   * One job. Never rejects: whatever happens, the run ends with a recorded status (written when the
   * database is there to take it) or is left to recovery. The job is completed as soon as the run is
   * claimed (or found not to need this worker): from then on the claim, the heartbeat and the sweep hold the
   * run at any length, and the job's expiry no longer matters.
   */
  private async handle(job: PgBoss.Job<unknown>) {
    const { prisma } = this.opts;
    const wait = { signal: this.stopping.signal };
    const complete = () =>
      void whileDatabaseDown(() => this.boss.complete(RUN_QUEUE, job.id), wait).catch((err) => {
        // Left active: pg-boss delivers it again after its expiry, and that delivery finds the run held.
        this.logger(`could not complete job ${job.id}: ${(err as Error).message}`);
      });
    const parsedJob = runJobSchema.safeParse(job.data);
    if (!parsedJob.success) {
      this.logger(`dropping malformed job: ${parsedJob.error.message}`);
      complete();
      return;
    }
    const data = parsedJob.data;
    let claimed: Awaited<ReturnType<typeof claimRun>>;
    try {
      claimed = await whileDatabaseDown(() => claimRun(prisma, data.runId, this.workerId), wait);
    } catch (err) {
      // Stopping while the database is away: the job stays active and is delivered again after its expiry.
      this.logger(`could not claim run ${data.runId}: ${(err as Error).message}`);
      return;
    }
    complete();
    if (!claimed) return; // finished, cancelled, or held by a live worker: nothing to do
    const journal = new RunJournal(prisma, claimed.id, this.workerId, (m) => this.logger(m), this.stopping.signal);
    const finish = async (status: "succeeded" | "failed" | "cancelled", error?: string) => {
      await journal.flush();
      const done = await whileDatabaseDown(() => finishRun(prisma, claimed!.id, this.workerId, status, error), wait).catch((err) => {
        this.logger(`could not record run ${claimed!.id} as ${status} (${(err as Error).message}); it is left for recovery`);
        return true;
      });
      if (!done) this.logger(`run ${claimed!.id} was taken over before it could be recorded as ${status}`);
    };
    const parsed = parseRunConfig(claimed.config);
    if (!parsed.ok) {
      await journal.log("error", `invalid stored config: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
      await finish("failed", "invalid stored config");
      return;
    }
    const controller = new AbortController();
    this.active.set(claimed.id, controller);
    const attemptStart = Date.now();
    let firstStep: number | null = null;
    const ctx: RunContext = {
      runId: claimed.id,
      workerId: this.workerId,
      config: parsed.config,
      prisma,
      signal: controller.signal,
      attempt: claimed.attempts,
      log: (level, message) => journal.log(level, message),
      detail: (text) => journal.detail(text),
      progress: async (step, total) => {
        firstStep ??= step - 1;
        const done = step - firstStep;
        const eta = done > 0 ? ((Date.now() - attemptStart) / 1000 / done) * Math.max(0, total - step) : null;
        // Progress is a snapshot: during a database outage it is skipped (the next report carries newer news).
        await reportProgress(prisma, claimed.id, this.workerId, { step, total, etaSeconds: eta }).catch((err) => {
          if (!isDatabaseUnavailable(err)) throw err;
        });
      },
    };
    let lostClaim = false;
    const beatOutage = new OutageNotice(`heartbeat of ${claimed.id}`, (m) => this.logger(m));
    let beating = false;
    const beat = setInterval(async () => {
      if (beating) return; // one at a time: a heartbeat waiting on a dead connection must not pile up
      beating = true;
      try {
        const hb = await heartbeat(prisma, claimed.id, this.workerId);
        beatOutage.ok();
        if (!hb) {
          lostClaim = true;
          controller.abort(new Error("claim lost"));
        } else if (hb.cancelRequested) controller.abort(new CancelledError());
      } catch (err) {
        if (!beatOutage.failed(err)) this.logger(`heartbeat failed for ${claimed.id}: ${(err as Error).message}`);
      } finally {
        beating = false;
      }
    }, this.opts.heartbeatMs ?? 1000);

    try {
      await ctx.log("info", `started on worker ${this.workerId} (attempt ${claimed.attempts}, ${data.reason})`);
      await this.opts.selectExecutor(parsed.config)(ctx);
      if (controller.signal.aborted) throw controller.signal.reason ?? new CancelledError();
      await ctx.log("info", "run succeeded");
      await finish("succeeded");
    } catch (err) {
      const cancelled = err instanceof CancelledError || controller.signal.reason instanceof CancelledError;
      if (this.stopped && !cancelled) {
        // Shutting down: leave the run "running" with a stale heartbeat so another worker resumes it.
        this.logger(`left run ${claimed.id} for recovery`);
      } else if (lostClaim || err instanceof ClaimLostError) {
        this.logger(`lost claim on ${claimed.id}`);
      } else if (cancelled) {
        await ctx.log("warn", "run cancelled");
        await finish("cancelled");
      } else {
        const message = err instanceof Error ? err.message : String(err);
        await ctx.log("error", `run failed: ${message}`);
        await finish("failed", message.slice(0, 2000));
      }
    } finally {
      clearInterval(beat);
      this.active.delete(claimed.id);
    }
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
