-- Turn storage at team scale (issue 25): the turn table becomes LIST-partitioned by run, so a deleted or
-- archived run's turns (the bulk of the database: one row per generation, tool response and judgement)
-- go with one DROP TABLE instead of millions of row deletes, and its text columns are compressed.
--
-- Prisma's migration runner splits the file at every semicolon, so function and DO bodies are E'' strings with
-- their semicolons written \073 (as in 20261201000000_live_updates_follow_data).
--
-- What Prisma's schema says (prisma/schema.prisma Turn) is what `prisma migrate diff` would write:
-- runId NOT NULL, primary key (runId, id), unique (runId, trajectoryId, index), a foreign key
-- (runId, trajectoryId) → trajectory(runId, id) with its unique index. The partitioning, the helper
-- functions and the TOAST compression are beyond Prisma's model and live only here.

-- The foreign key's target: a trajectory's cascade reaches exactly one turn partition.
CREATE UNIQUE INDEX "trajectory_runId_id_key" ON "trajectory"("runId", "id");

ALTER TABLE "turn" RENAME TO "turn_unpartitioned";

CREATE TABLE "turn" (
    "runId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "trajectoryId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "toolCalls" JSONB,
    "rehearsedResponse" TEXT,
    "realResponse" TEXT,
    "fidelity" JSONB,
    "errorCode" TEXT,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "responseTokens" INTEGER NOT NULL DEFAULT 0,
    "advantage" DOUBLE PRECISION
) PARTITION BY LIST ("runId");

-- Compression of the long columns (inherited by every partition): lz4 where the server was built with it
-- (faster than pglz at a similar ratio), else pglz. The embedded server (embedded-postgres 18) has no lz4.
DO E'
DECLARE
  method text := CASE WHEN EXISTS (
    SELECT 1 FROM pg_settings WHERE name = ''default_toast_compression'' AND ''lz4'' = ANY (enumvals)
  ) THEN ''lz4'' ELSE ''pglz'' END\073
  col text\073
BEGIN
  FOREACH col IN ARRAY ARRAY[''text'', ''toolCalls'', ''rehearsedResponse'', ''realResponse'', ''fidelity''] LOOP
    EXECUTE format(''ALTER TABLE "turn" ALTER COLUMN %I SET COMPRESSION %s'', col, method)\073
  END LOOP\073
END ';

-- Rows of a run that has no partition yet (written outside the worker's commit): ensure_turn_partition
-- moves them into the run's partition when it creates it.
CREATE TABLE "turn_default" PARTITION OF "turn" DEFAULT;

-- The partition of a run: turn_p_<the run's uuid without dashes>, or of the md5 of any other id.
CREATE FUNCTION turn_partition_name(run_id text) RETURNS text LANGUAGE sql IMMUTABLE AS E'
  SELECT ''turn_p_'' || CASE WHEN run_id ~ ''^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$''
                           THEN lower(replace(run_id, ''-'', '''')) ELSE md5(run_id) END
';

-- Creates the run's partition if it has none (true when it did). Built beside the table and ATTACHed,
-- which takes a SHARE UPDATE EXCLUSIVE lock on turn (readers and writers of other runs go on), where
-- CREATE TABLE … PARTITION OF would take ACCESS EXCLUSIVE. The partition keeps the default TOAST target
-- (2 kB): a target of 256 bytes measured 2.6 % larger at the paper shape (bench:persist), the extra
-- TOAST chunks costing more than the heap they save.
CREATE FUNCTION ensure_turn_partition(run_id text) RETURNS boolean LANGUAGE plpgsql AS E'
DECLARE
  part text := turn_partition_name(run_id)\073
BEGIN
  IF to_regclass(format(''%I'', part)) IS NOT NULL THEN RETURN false\073 END IF\073
  PERFORM pg_advisory_xact_lock(hashtext(part))\073
  IF to_regclass(format(''%I'', part)) IS NOT NULL THEN RETURN false\073 END IF\073
  EXECUTE format(''CREATE TABLE %I (LIKE "turn" INCLUDING DEFAULTS INCLUDING COMPRESSION)'', part)\073
  EXECUTE format(''INSERT INTO %I SELECT * FROM "turn_default" WHERE "runId" = %L'', part, run_id)\073
  DELETE FROM "turn_default" WHERE "runId" = run_id\073
  EXECUTE format(''ALTER TABLE "turn" ATTACH PARTITION %I FOR VALUES IN (%L)'', part, run_id)\073
  RETURN true\073
END ';

-- Drops the run's turns: its partition (O(1)), and any of its rows in the default partition.
CREATE FUNCTION drop_turn_partition(run_id text) RETURNS boolean LANGUAGE plpgsql AS E'
DECLARE
  part text := turn_partition_name(run_id)\073
  found boolean := to_regclass(format(''%I'', part)) IS NOT NULL\073
BEGIN
  IF found THEN EXECUTE format(''DROP TABLE %I'', part)\073 END IF\073
  DELETE FROM "turn_default" WHERE "runId" = run_id\073
  RETURN found\073
END ';

-- One partition per run that has turns, then the rows (each turn takes its trajectory's run).
DO E'
DECLARE r record\073
BEGIN
  FOR r IN SELECT DISTINCT t."runId" FROM "turn_unpartitioned" u JOIN "trajectory" t ON t.id = u."trajectoryId" LOOP
    PERFORM ensure_turn_partition(r."runId")\073
  END LOOP\073
END ';

INSERT INTO "turn" ("runId", "id", "trajectoryId", "index", "role", "text", "toolCalls", "rehearsedResponse", "realResponse",
                    "fidelity", "errorCode", "promptTokens", "responseTokens", "advantage")
SELECT t."runId", u."id", u."trajectoryId", u."index", u."role", u."text", u."toolCalls", u."rehearsedResponse", u."realResponse",
       u."fidelity", u."errorCode", u."promptTokens", u."responseTokens", u."advantage"
FROM "turn_unpartitioned" u JOIN "trajectory" t ON t.id = u."trajectoryId";

DROP TABLE "turn_unpartitioned";

-- Keys on the partitioned table (each partition gets its own index).
ALTER TABLE "turn" ADD CONSTRAINT "turn_pkey" PRIMARY KEY ("runId", "id");
CREATE UNIQUE INDEX "turn_runId_trajectoryId_index_key" ON "turn"("runId", "trajectoryId", "index");
ALTER TABLE "turn" ADD CONSTRAINT "turn_runId_trajectoryId_fkey" FOREIGN KEY ("runId", "trajectoryId") REFERENCES "trajectory"("runId", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Archive and retention of a run's turns (server/features/runs/storage.ts).
ALTER TABLE "run" ADD COLUMN "archivedAt" TIMESTAMP(3),
ADD COLUMN "archiveUri" TEXT,
ADD COLUMN "retainTurnsDays" INTEGER;

