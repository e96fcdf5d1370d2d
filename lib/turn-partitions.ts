/**
 * The turn table is LIST-partitioned by run (prisma/migrations/20261203200000_turn_partitions): each run's
 * turns live in their own table `turn_p_<run id hex>`, so deleting or archiving a run drops one table
 * instead of deleting millions of rows, and every read that names the run touches one partition.
 * The SQL functions doing the work live in the database (the migration), so the worker, the server, the
 * seeder and the migration's backfill create and drop partitions the same way.
 */
import type { Prisma, PrismaClient } from "@prisma/client";

type Db = PrismaClient | Prisma.TransactionClient;

/**
 * Creates the run's partition unless it exists (true when it did), moving any of the run's rows from the
 * default partition into it. Call it outside long transactions: attaching a partition takes a
 * SHARE UPDATE EXCLUSIVE lock on turn until the caller's transaction ends.
 */
export async function ensureTurnPartition(db: Db, runId: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ created: boolean }[]>`select ensure_turn_partition(${runId}) as created`;
  return rows[0]?.created === true;
}

/**
 * Drops the run's turns: its partition (O(1): one DROP TABLE, whatever the row count) and any of its
 * rows left in the default partition. Run it in the transaction that deletes or archives the run, so
 * both happen or neither. True when a partition was dropped.
 */
export async function dropTurnPartition(db: Db, runId: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ dropped: boolean }[]>`select drop_turn_partition(${runId}) as dropped`;
  return rows[0]?.dropped === true;
}

/** Whether the run has its own partition. */
export async function hasTurnPartition(db: Db, runId: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ exists: boolean }[]>`select to_regclass(quote_ident(turn_partition_name(${runId}))) is not null as exists`;
  return rows[0]?.exists === true;
}
