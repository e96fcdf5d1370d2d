/**
 * The job runner: consumes run jobs from pg-boss, claims each run exactly once, executes it with a
 * heartbeat (which also carries cancel requests), and sweeps runs orphaned by dead workers back
 * into the queue so they resume.
 */
import os from "node:os";
import crypto from "node:crypto";
import PgBoss from "pg-boss";
import type { PrismaClient } from "@prisma/client";
import { RUN_QUEUE, runJobSchema } from "../../contracts/jobs";
import { parseRunConfig, type RunConfig } from "../../contracts/run-config";
import { appendLog, cancelOrphanedRuns, claimRun, finishRun, heartbeat, reportProgress, takeOrphanedRuns } from "./lifecycle";
import { CancelledError, type Executor, type RunContext } from "./context";

export interface WorkerOptions {
  prisma: PrismaClient;
  databaseUrl: string;
  /** Picks the executor for a run config. */
  selectExecutor: (config: RunConfig) => Executor;
  concurrency?: number;
  heartbeatMs?: number;
  sweepMs?: number;
  pollingIntervalSeconds?: number;
  workerId?: string;
  logger?: (msg: string) => void;
}

export class RunWorker {
  readonly workerId: string;
  private boss: PgBoss;
  private sweepTimer?: NodeJS.Timeout;
  private active = new Map<string, AbortController>();
  private stopped = false;

  constructor(private opts: WorkerOptions) {
    this.workerId = opts.workerId ?? `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString("hex")}`;
    this.boss = new PgBoss({ connectionString: opts.databaseUrl, max: 4 });
    this.boss.on("error", (err) => this.logger(`pg-boss error: ${err.message}`));
  }

  private logger(msg: string) {
    (this.opts.logger ?? ((m: string) => console.log(`[worker ${this.workerId}] ${m}`)))(msg);
  }

  async start() {
    await this.boss.start();
    await this.boss.createQueue(RUN_QUEUE);
    const concurrency = this.opts.concurrency ?? 2;
    for (let i = 0; i < concurrency; i++) {
      await this.boss.work(RUN_QUEUE, { batchSize: 1, pollingIntervalSeconds: this.opts.pollingIntervalSeconds ?? 1 }, async (jobs) => {
        for (const job of jobs) await this.handle(job.data);
      });
    }
    await this.sweep();
    this.sweepTimer = setInterval(() => this.sweep().catch((e) => this.logger(`sweep failed: ${e.message}`)), this.opts.sweepMs ?? 10_000);
    this.logger(`started (concurrency ${concurrency})`);
  }

  /** Stop taking jobs; in-flight runs are aborted and left for recovery unless `drain` is set. */
  async stop({ drain = false }: { drain?: boolean } = {}) {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (!drain) for (const c of this.active.values()) c.abort(new Error("worker stopping"));
    await this.boss.stop({ graceful: drain, wait: true, timeout: drain ? 60_000 : 5_000 }).catch(() => {});
  }

  private async sweep() {
    if (this.stopped) return;
    await cancelOrphanedRuns(this.opts.prisma);
    const ids = await takeOrphanedRuns(this.opts.prisma);
    for (const runId of ids) {
      await appendLog(this.opts.prisma, runId, "warn", "worker lost (no heartbeat); the run is queued again and will resume");
      await this.boss.send(RUN_QUEUE, { runId, reason: "recovered" }, { retryLimit: 3, retryDelay: 5, expireInHours: 23 });
      this.logger(`recovered orphaned run ${runId}`);
    }
  }

  private async handle(data: unknown) {
    const job = runJobSchema.safeParse(data);
    if (!job.success) {
      this.logger(`dropping malformed job: ${job.error.message}`);
      return;
    }
    const { prisma } = this.opts;
    const claimed = await claimRun(prisma, job.data.runId, this.workerId);
    if (!claimed) return; // finished, cancelled, or held by a live worker: nothing to do
    const parsed = parseRunConfig(claimed.config);
    if (!parsed.ok) {
      await appendLog(prisma, claimed.id, "error", `invalid stored config: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
      await finishRun(prisma, claimed.id, this.workerId, "failed", "invalid stored config");
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
      log: (level, message) => appendLog(prisma, claimed.id, level, message),
      progress: async (step, total) => {
        firstStep ??= step - 1;
        const done = step - firstStep;
        const eta = done > 0 ? ((Date.now() - attemptStart) / 1000 / done) * Math.max(0, total - step) : null;
        await reportProgress(prisma, claimed.id, this.workerId, { step, total, etaSeconds: eta });
      },
    };
    let lostClaim = false;
    const beat = setInterval(async () => {
      try {
        const hb = await heartbeat(prisma, claimed.id, this.workerId);
        if (!hb) {
          lostClaim = true;
          controller.abort(new Error("claim lost"));
        } else if (hb.cancelRequested) controller.abort(new CancelledError());
      } catch (err) {
        this.logger(`heartbeat failed for ${claimed.id}: ${(err as Error).message}`);
      }
    }, this.opts.heartbeatMs ?? 1000);

    try {
      await ctx.log("info", `started on worker ${this.workerId} (attempt ${claimed.attempts}, ${job.data.reason})`);
      await this.opts.selectExecutor(parsed.config)(ctx);
      if (controller.signal.aborted) throw controller.signal.reason ?? new CancelledError();
      await ctx.log("info", "run succeeded");
      await finishRun(prisma, claimed.id, this.workerId, "succeeded");
    } catch (err) {
      if (this.stopped && !(err instanceof CancelledError) && !(controller.signal.reason instanceof CancelledError)) {
        // Shutting down: leave the run "running" with a stale heartbeat so another worker resumes it.
        this.logger(`left run ${claimed.id} for recovery`);
      } else if (lostClaim) {
        this.logger(`lost claim on ${claimed.id}`);
      } else if (err instanceof CancelledError || controller.signal.reason instanceof CancelledError) {
        await ctx.log("warn", "run cancelled");
        await finishRun(prisma, claimed.id, this.workerId, "cancelled");
      } else {
        const message = err instanceof Error ? err.message : String(err);
        await ctx.log("error", `run failed: ${message}`).catch(() => {});
        await finishRun(prisma, claimed.id, this.workerId, "failed", message.slice(0, 2000));
      }
    } finally {
      clearInterval(beat);
      this.active.delete(claimed.id);
    }
  }
}
