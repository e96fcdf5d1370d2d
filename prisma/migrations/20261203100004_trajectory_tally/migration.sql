-- CreateTable
CREATE TABLE "trajectory_tally" (
    "runId" TEXT NOT NULL,
    "phase" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "terminationReason" TEXT NOT NULL,
    "errorKind" TEXT NOT NULL,
    "n" INTEGER NOT NULL,

    CONSTRAINT "trajectory_tally_pkey" PRIMARY KEY ("runId","phase","outcome","terminationReason","errorKind")
);


-- Function bodies are E'' strings with \073 for the semicolon (the migration runner splits statements on it).
CREATE FUNCTION trajectory_tally_add() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO trajectory_tally ("runId", phase, outcome, "terminationReason", "errorKind", n)
  SELECT "runId", phase, outcome, "terminationReason", coalesce("errorKind", ''''), count(*)::int FROM new_rows GROUP BY 1, 2, 3, 4, 5
  ON CONFLICT ("runId", phase, outcome, "terminationReason", "errorKind") DO UPDATE SET n = trajectory_tally.n + excluded.n\073
  RETURN NULL\073
END ';

-- Taking off only updates rows that exist (a run being deleted may have lost its tally rows already), then drops emptied ones.
CREATE FUNCTION trajectory_tally_remove() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  UPDATE trajectory_tally t SET n = t.n - o.n
  FROM (SELECT "runId", phase, outcome, "terminationReason", coalesce("errorKind", '''') AS "errorKind", count(*)::int AS n FROM old_rows GROUP BY 1, 2, 3, 4, 5) o
  WHERE t."runId" = o."runId" AND t.phase = o.phase AND t.outcome = o.outcome AND t."terminationReason" = o."terminationReason" AND t."errorKind" = o."errorKind"\073
  DELETE FROM trajectory_tally t USING (SELECT DISTINCT "runId" FROM old_rows) r WHERE t."runId" = r."runId" AND t.n <= 0\073
  RETURN NULL\073
END ';

-- An update moves rows between groups: the net change per group (zero for updates of other columns, e.g. token rollups).
CREATE FUNCTION trajectory_tally_move() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO trajectory_tally ("runId", phase, outcome, "terminationReason", "errorKind", n)
  SELECT "runId", phase, outcome, "terminationReason", "errorKind", sum(n)::int FROM (
    SELECT "runId", phase, outcome, "terminationReason", coalesce("errorKind", '''') AS "errorKind", -count(*) AS n FROM old_rows GROUP BY 1, 2, 3, 4, 5
    UNION ALL
    SELECT "runId", phase, outcome, "terminationReason", coalesce("errorKind", ''''), count(*) FROM new_rows GROUP BY 1, 2, 3, 4, 5
  ) d GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0
  ON CONFLICT ("runId", phase, outcome, "terminationReason", "errorKind") DO UPDATE SET n = trajectory_tally.n + excluded.n\073
  DELETE FROM trajectory_tally t USING (SELECT DISTINCT "runId" FROM old_rows) r WHERE t."runId" = r."runId" AND t.n <= 0\073
  RETURN NULL\073
END ';

CREATE FUNCTION trajectory_tally_clear() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  TRUNCATE trajectory_tally\073
  RETURN NULL\073
END ';

CREATE TRIGGER trajectory_tally_insert AFTER INSERT ON trajectory
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION trajectory_tally_add();
CREATE TRIGGER trajectory_tally_update AFTER UPDATE ON trajectory
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION trajectory_tally_move();
CREATE TRIGGER trajectory_tally_delete AFTER DELETE ON trajectory
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION trajectory_tally_remove();
CREATE TRIGGER trajectory_tally_truncate AFTER TRUNCATE ON trajectory
  FOR EACH STATEMENT EXECUTE FUNCTION trajectory_tally_clear();

-- The trajectories already stored.
INSERT INTO trajectory_tally ("runId", phase, outcome, "terminationReason", "errorKind", n)
SELECT "runId", phase, outcome, "terminationReason", coalesce("errorKind", ''), count(*)::int FROM trajectory GROUP BY 1, 2, 3, 4, 5;

-- Planner statistics for the new table now, not at the next autovacuum (a chart would scan it meanwhile).
ANALYZE trajectory_tally;
