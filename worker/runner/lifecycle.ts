/**
 * Run lifecycle on the worker side. A run is claimed with one conditional UPDATE, so two workers
 * (or a duplicate pg-boss delivery) can never both execute it; every later write is fenced on
 * `workerId`, so a worker that lost its claim cannot clobber the run.
 */
import type { PrismaClient } from "@prisma/client";
import { HEARTBEAT_STALE_SECONDS } from "../../contracts/jobs";

export interface ClaimedRun {
  id: string;
  config: unknown;
  attempts: number;
  progressStep: number;
  totalSteps: number;
}

export async function claimRun(prisma: PrismaClient, runId: string, workerId: string): Promise<ClaimedRun | null> {
  const rows = await prisma.$queryRaw<ClaimedRun[]>`
    update "run" set status = 'running', "workerId" = ${workerId}, "heartbeatAt" = now(), "statusDetail" = null,
      attempts = attempts + 1, "startedAt" = coalesce("startedAt", now()), "updatedAt" = now()
    where id = ${runId}
      and not "cancelRequested"
      and (status = 'queued'
           or (status = 'running' and ("heartbeatAt" is null
               or "heartbeatAt" < now() - make_interval(secs => ${HEARTBEAT_STALE_SECONDS}))))
    returning id, config, attempts, "progressStep", "totalSteps"`;
  return rows[0] ?? null;
}

/** Heartbeat; returns whether cancel was requested, or null when this worker no longer holds the run. */
export async function heartbeat(prisma: PrismaClient, runId: string, workerId: string): Promise<{ cancelRequested: boolean } | null> {
  const rows = await prisma.$queryRaw<{ cancelRequested: boolean }[]>`
    update "run" set "heartbeatAt" = now()
    where id = ${runId} and "workerId" = ${workerId} and status = 'running'
    returning "cancelRequested"`;
  return rows[0] ?? null;
}

export async function finishRun(
  prisma: PrismaClient,
  runId: string,
  workerId: string,
  status: "succeeded" | "failed" | "cancelled",
  error?: string,
): Promise<boolean> {
  const n = await prisma.$executeRaw`
    update "run" set status = ${status}, error = ${error ?? null}, "finishedAt" = now(), "etaSeconds" = null,
      "heartbeatAt" = null, "statusDetail" = null, "updatedAt" = now()
    where id = ${runId} and "workerId" = ${workerId} and status = 'running'`;
  return n > 0;
}

/** What the run is doing beside progressing ("waiting for node …"), shown on the run page; null clears it. Fenced on the claim. */
export async function setStatusDetail(prisma: PrismaClient, runId: string, workerId: string, detail: string | null): Promise<void> {
  await prisma.$executeRaw`
    update "run" set "statusDetail" = ${detail}, "updatedAt" = now()
    where id = ${runId} and "workerId" = ${workerId} and status = 'running'`;
}

export async function appendLog(prisma: PrismaClient, runId: string, level: "info" | "warn" | "error", message: string) {
  await prisma.runLog.create({ data: { runId, level, message: message.slice(0, 10_000) } });
}

export async function reportProgress(
  prisma: PrismaClient,
  runId: string,
  workerId: string,
  progress: { step: number; total: number; etaSeconds: number | null },
) {
  await prisma.$executeRaw`
    update "run" set "progressStep" = ${progress.step}, "totalSteps" = ${progress.total},
      "etaSeconds" = ${progress.etaSeconds}, "heartbeatAt" = now(), "updatedAt" = now()
    where id = ${runId} and "workerId" = ${workerId}`;
}

/**
 * Runs whose worker stopped heartbeating: put them back in the queue. Returns their ids; the caller
 * sends the jobs. `for update skip locked` keeps two sweeping workers from recovering the same run twice.
 * `ownActive` are the runs the sweeping worker is executing itself: after a database outage their
 * heartbeats are stale too, but their worker is alive and carries on with them.
 */
export async function takeOrphanedRuns(prisma: PrismaClient, ownActive: string[] = []): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    update "run" set status = 'queued', "workerId" = null, "statusDetail" = null, "updatedAt" = now()
    where id in (
      select id from "run"
      where status = 'running' and not "cancelRequested"
        and ("heartbeatAt" is null or "heartbeatAt" < now() - make_interval(secs => ${HEARTBEAT_STALE_SECONDS}))
        and not (id = any(${ownActive}::text[]))
      for update skip locked)
    returning id`;
  return rows.map((r) => r.id);
}

/** Orphaned runs whose cancel was requested are simply cancelled. */
export async function cancelOrphanedRuns(prisma: PrismaClient, ownActive: string[] = []): Promise<number> {
  return prisma.$executeRaw`
    update "run" set status = 'cancelled', "finishedAt" = now(), "etaSeconds" = null, "statusDetail" = null, "updatedAt" = now()
    where status = 'running' and "cancelRequested"
      and ("heartbeatAt" is null or "heartbeatAt" < now() - make_interval(secs => ${HEARTBEAT_STALE_SECONDS}))
      and not (id = any(${ownActive}::text[]))`;
}
