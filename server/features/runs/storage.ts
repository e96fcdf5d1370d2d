/**
 * A run's stored turns: delete a finished run (its turn partition dropped in O(1), the rest cascades),
 * archive its turns to the archive store and restore them (lib/turn-archive.ts), its retention setting.
 */
import { terminalStatuses, type RunStatus } from "../../../contracts/jobs";
import { prisma } from "../../../lib/db";
import { mayChangeRun, RUN_CHANGE_RULE, type Actor } from "../../../lib/permissions";
import { dropTurnPartition } from "../../../lib/turn-partitions";
import { ArchiveError, archiveRunTurns, restoreRunTurns, type ArchiveStore } from "../../../lib/turn-archive";
import { DomainError, notFound } from "../../lib/errors";

async function changeableRun(id: string, actor: Actor, action: string) {
  const run = await prisma.run.findUnique({ where: { id }, select: { status: true, createdById: true, archivedAt: true } });
  if (!run) throw notFound("run", id);
  if (!mayChangeRun(run, actor)) throw new DomainError("FORBIDDEN", `you cannot ${action} this run: ${RUN_CHANGE_RULE}`);
  return run;
}

/**
 * Deletes a finished run and everything it stored. Its turns go with one DROP TABLE of its partition in
 * the transaction that deletes the run row (trajectories, steps, metrics, logs… cascade from it).
 */
export async function deleteRun(id: string, actor: Actor): Promise<{ id: string; turnPartitionDropped: boolean }> {
  return prisma.$transaction(
    async (tx) => {
      const rows = await tx.$queryRaw<{ status: string; createdById: string }[]>`select status, "createdById" from "run" where id = ${id} for update`;
      if (rows.length === 0) throw notFound("run", id);
      if (!mayChangeRun(rows[0]!, actor)) throw new DomainError("FORBIDDEN", `you cannot delete this run: ${RUN_CHANGE_RULE}`);
      const status = rows[0]!.status as RunStatus;
      if (!terminalStatuses.includes(status)) throw new DomainError("CONFLICT", `run ${id} is ${status}; cancel it before deleting it`);
      const dropped = await dropTurnPartition(tx, id);
      await tx.run.delete({ where: { id } });
      return { id, turnPartitionDropped: dropped };
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
}

function asDomainError(err: unknown): never {
  if (err instanceof ArchiveError) throw new DomainError("CONFLICT", err.message);
  throw err;
}

export async function archiveRun(id: string, actor: Actor, store?: ArchiveStore) {
  await changeableRun(id, actor, "archive");
  return archiveRunTurns(prisma, id, { store }).catch(asDomainError);
}

export async function restoreRun(id: string, actor: Actor, store?: ArchiveStore) {
  await changeableRun(id, actor, "restore");
  return restoreRunTurns(prisma, id, { store }).catch(asDomainError);
}

/** Sets (or clears, with null) how many days after it finished the run's turns are archived. */
export async function setRunRetention(id: string, actor: Actor, retainTurnsDays: number | null) {
  await changeableRun(id, actor, "change the retention of");
  return prisma.run.update({ where: { id }, data: { retainTurnsDays }, select: { id: true, retainTurnsDays: true, archivedAt: true, archiveUri: true } });
}
