-- Run-level rollups of the world-model view (server/features/runs/world-model.ts), kept by statement
-- triggers on fidelity_stat and fidelity_divergence like metric_rollup (20261203100003): the view of a
-- 15,000-step run read every per-step row and scanned its ~150,000 divergence rows twice.
-- Function bodies are E'' strings with \073 for the semicolon (the migration runner splits statements on it).

-- Per (run, phase, tool): the sums of every step.
CREATE TABLE "fidelity_tool_total" (
    "runId" TEXT NOT NULL,
    "phase" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "comparisons" BIGINT NOT NULL,
    "scoreSum" DOUBLE PRECISION NOT NULL,
    "exact" BIGINT NOT NULL,
    "errorAgree" BIGINT NOT NULL,
    "invalid" BIGINT NOT NULL,
    "bothErrors" BIGINT NOT NULL,

    CONSTRAINT "fidelity_tool_total_pkey" PRIMARY KEY ("runId","phase","tool")
);

-- Per (run, phase) the steps [bucket × width, (bucket + 1) × width) summed over tools, at the chart
-- rollup widths (server/features/metrics/rollup.ts ROLLUP_WIDTHS), with the first and last step present.
CREATE TABLE "fidelity_step_rollup" (
    "runId" TEXT NOT NULL,
    "phase" TEXT NOT NULL,
    "width" INTEGER NOT NULL,
    "bucket" INTEGER NOT NULL,
    "minStep" INTEGER NOT NULL,
    "maxStep" INTEGER NOT NULL,
    "comparisons" BIGINT NOT NULL,
    "scoreSum" DOUBLE PRECISION NOT NULL,
    "exact" BIGINT NOT NULL,
    "errorAgree" BIGINT NOT NULL,
    "invalid" BIGINT NOT NULL,
    "bothErrors" BIGINT NOT NULL,

    CONSTRAINT "fidelity_step_rollup_pkey" PRIMARY KEY ("runId","phase","width","bucket")
);

-- Per (run, phase, divergence kind): the count over every step and the newest step showing it.
CREATE TABLE "fidelity_divergence_total" (
    "runId" TEXT NOT NULL,
    "phase" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "rehearsed" TEXT,
    "real" TEXT,
    "count" BIGINT NOT NULL,
    "lastStep" INTEGER NOT NULL
);

-- NULLS NOT DISTINCT: a missing rehearsed or real value is one kind, as the view's GROUP BY counts it.
CREATE UNIQUE INDEX "fidelity_divergence_total_runId_phase_tool_path_rehearsed_real_key" ON "fidelity_divergence_total"("runId", "phase", "tool", "path", "rehearsed", "real") NULLS NOT DISTINCT;

-- A touched kind is recomputed from its own rows (deletes and replaces), not from the run's.
CREATE INDEX "fidelity_divergence_runId_phase_tool_path_idx" ON "fidelity_divergence"("runId", "phase", "tool", "path");

CREATE FUNCTION fidelity_rollup_widths() RETURNS int[] LANGUAGE sql IMMUTABLE AS E' SELECT ARRAY[4, 32, 256, 2048] ';

-- New per-step rows: sums add, first/last step combine.
CREATE FUNCTION fidelity_stat_rollup_add() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO fidelity_tool_total ("runId", phase, tool, comparisons, "scoreSum", exact, "errorAgree", invalid, "bothErrors")
  SELECT s."runId", s.phase, s.tool, sum(s.comparisons), sum(s."scoreSum"), sum(s.exact), sum(s."errorAgree"), sum(s.invalid), sum(s."bothErrors")
  FROM new_stats s GROUP BY 1, 2, 3
  ON CONFLICT ("runId", phase, tool) DO UPDATE SET
    comparisons = fidelity_tool_total.comparisons + excluded.comparisons,
    "scoreSum" = fidelity_tool_total."scoreSum" + excluded."scoreSum",
    exact = fidelity_tool_total.exact + excluded.exact,
    "errorAgree" = fidelity_tool_total."errorAgree" + excluded."errorAgree",
    invalid = fidelity_tool_total.invalid + excluded.invalid,
    "bothErrors" = fidelity_tool_total."bothErrors" + excluded."bothErrors"\073
  INSERT INTO fidelity_step_rollup ("runId", phase, width, bucket, "minStep", "maxStep", comparisons, "scoreSum", exact, "errorAgree", invalid, "bothErrors")
  SELECT s."runId", s.phase, w.width, floor(s.step::float8 / w.width)::int, min(s.step), max(s.step),
    sum(s.comparisons), sum(s."scoreSum"), sum(s.exact), sum(s."errorAgree"), sum(s.invalid), sum(s."bothErrors")
  FROM new_stats s CROSS JOIN unnest(fidelity_rollup_widths()) AS w(width)
  GROUP BY 1, 2, 3, 4
  ON CONFLICT ("runId", phase, width, bucket) DO UPDATE SET
    "minStep" = least(fidelity_step_rollup."minStep", excluded."minStep"),
    "maxStep" = greatest(fidelity_step_rollup."maxStep", excluded."maxStep"),
    comparisons = fidelity_step_rollup.comparisons + excluded.comparisons,
    "scoreSum" = fidelity_step_rollup."scoreSum" + excluded."scoreSum",
    exact = fidelity_step_rollup.exact + excluded.exact,
    "errorAgree" = fidelity_step_rollup."errorAgree" + excluded."errorAgree",
    invalid = fidelity_step_rollup.invalid + excluded.invalid,
    "bothErrors" = fidelity_step_rollup."bothErrors" + excluded."bothErrors"\073
  RETURN NULL\073
END ';

-- Changed or removed per-step rows: the touched totals and buckets are recomputed (exact: first/last step
-- cannot be taken back). A step's replace (worker/runner/persist.ts) touches its tools and one bucket per width.
CREATE FUNCTION fidelity_stat_rollup_recompute() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  -- Every step commit first deletes its scope (worker/runner/fidelity-rollup.ts), mostly nothing: no temp table then.
  IF NOT EXISTS (SELECT 1 FROM old_stats) THEN RETURN NULL\073 END IF\073
  CREATE TEMP TABLE IF NOT EXISTS fidelity_stat_touched ("runId" text, phase text, tool text, step int) ON COMMIT DROP\073
  TRUNCATE fidelity_stat_touched\073
  INSERT INTO fidelity_stat_touched SELECT DISTINCT s."runId", s.phase, s.tool, s.step FROM old_stats s\073
  IF TG_OP = ''UPDATE'' THEN
    INSERT INTO fidelity_stat_touched SELECT DISTINCT s."runId", s.phase, s.tool, s.step FROM new_stats s\073
  END IF\073
  DELETE FROM fidelity_tool_total r USING (SELECT DISTINCT "runId", phase, tool FROM fidelity_stat_touched) t
  WHERE r."runId" = t."runId" AND r.phase = t.phase AND r.tool = t.tool\073
  INSERT INTO fidelity_tool_total ("runId", phase, tool, comparisons, "scoreSum", exact, "errorAgree", invalid, "bothErrors")
  SELECT t."runId", t.phase, t.tool, sum(s.comparisons), sum(s."scoreSum"), sum(s.exact), sum(s."errorAgree"), sum(s.invalid), sum(s."bothErrors")
  FROM (SELECT DISTINCT "runId", phase, tool FROM fidelity_stat_touched) t
  JOIN fidelity_stat s ON s."runId" = t."runId" AND s.phase = t.phase AND s.tool = t.tool
  GROUP BY 1, 2, 3\073
  DELETE FROM fidelity_step_rollup r USING (
    SELECT DISTINCT t."runId", t.phase, w.width, floor(t.step::float8 / w.width)::int AS bucket
    FROM fidelity_stat_touched t CROSS JOIN unnest(fidelity_rollup_widths()) AS w(width)) t
  WHERE r."runId" = t."runId" AND r.phase = t.phase AND r.width = t.width AND r.bucket = t.bucket\073
  INSERT INTO fidelity_step_rollup ("runId", phase, width, bucket, "minStep", "maxStep", comparisons, "scoreSum", exact, "errorAgree", invalid, "bothErrors")
  SELECT t."runId", t.phase, t.width, t.bucket, min(s.step), max(s.step),
    sum(s.comparisons), sum(s."scoreSum"), sum(s.exact), sum(s."errorAgree"), sum(s.invalid), sum(s."bothErrors")
  FROM (SELECT DISTINCT t."runId", t.phase, w.width, floor(t.step::float8 / w.width)::int AS bucket
        FROM fidelity_stat_touched t CROSS JOIN unnest(fidelity_rollup_widths()) AS w(width)) t
  JOIN fidelity_stat s ON s."runId" = t."runId" AND s.phase = t.phase AND s.step >= t.bucket * t.width AND s.step < (t.bucket + 1) * t.width
  GROUP BY 1, 2, 3, 4\073
  RETURN NULL\073
END ';

CREATE FUNCTION fidelity_stat_rollup_clear() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  TRUNCATE fidelity_tool_total, fidelity_step_rollup\073
  RETURN NULL\073
END ';

CREATE FUNCTION fidelity_divergence_total_add() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO fidelity_divergence_total ("runId", phase, tool, path, rehearsed, "real", count, "lastStep")
  SELECT d."runId", d.phase, d.tool, d.path, d.rehearsed, d."real", sum(d.count), max(d.step)
  FROM new_divergences d GROUP BY 1, 2, 3, 4, 5, 6
  ON CONFLICT ("runId", phase, tool, path, rehearsed, "real") DO UPDATE SET
    count = fidelity_divergence_total.count + excluded.count,
    "lastStep" = greatest(fidelity_divergence_total."lastStep", excluded."lastStep")\073
  RETURN NULL\073
END ';

CREATE FUNCTION fidelity_divergence_total_recompute() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  IF NOT EXISTS (SELECT 1 FROM old_divergences) THEN RETURN NULL\073 END IF\073
  CREATE TEMP TABLE IF NOT EXISTS fidelity_divergence_touched ("runId" text, phase text, tool text, path text, rehearsed text, "real" text) ON COMMIT DROP\073
  TRUNCATE fidelity_divergence_touched\073
  INSERT INTO fidelity_divergence_touched SELECT DISTINCT d."runId", d.phase, d.tool, d.path, d.rehearsed, d."real" FROM old_divergences d\073
  IF TG_OP = ''UPDATE'' THEN
    INSERT INTO fidelity_divergence_touched SELECT DISTINCT d."runId", d.phase, d.tool, d.path, d.rehearsed, d."real" FROM new_divergences d\073
  END IF\073
  DELETE FROM fidelity_divergence_total r USING fidelity_divergence_touched t
  WHERE r."runId" = t."runId" AND r.phase = t.phase AND r.tool = t.tool AND r.path = t.path
    AND r.rehearsed IS NOT DISTINCT FROM t.rehearsed AND r."real" IS NOT DISTINCT FROM t."real"\073
  INSERT INTO fidelity_divergence_total ("runId", phase, tool, path, rehearsed, "real", count, "lastStep")
  SELECT t."runId", t.phase, t.tool, t.path, t.rehearsed, t."real", sum(d.count), max(d.step)
  FROM (SELECT DISTINCT * FROM fidelity_divergence_touched) t
  JOIN fidelity_divergence d ON d."runId" = t."runId" AND d.phase = t.phase AND d.tool = t.tool AND d.path = t.path
    AND d.rehearsed IS NOT DISTINCT FROM t.rehearsed AND d."real" IS NOT DISTINCT FROM t."real"
  GROUP BY 1, 2, 3, 4, 5, 6\073
  RETURN NULL\073
END ';

CREATE FUNCTION fidelity_divergence_total_clear() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  TRUNCATE fidelity_divergence_total\073
  RETURN NULL\073
END ';

CREATE TRIGGER fidelity_stat_rollup_insert AFTER INSERT ON fidelity_stat
  REFERENCING NEW TABLE AS new_stats FOR EACH STATEMENT EXECUTE FUNCTION fidelity_stat_rollup_add();
CREATE TRIGGER fidelity_stat_rollup_update AFTER UPDATE ON fidelity_stat
  REFERENCING OLD TABLE AS old_stats NEW TABLE AS new_stats FOR EACH STATEMENT EXECUTE FUNCTION fidelity_stat_rollup_recompute();
CREATE TRIGGER fidelity_stat_rollup_delete AFTER DELETE ON fidelity_stat
  REFERENCING OLD TABLE AS old_stats FOR EACH STATEMENT EXECUTE FUNCTION fidelity_stat_rollup_recompute();
CREATE TRIGGER fidelity_stat_rollup_truncate AFTER TRUNCATE ON fidelity_stat
  FOR EACH STATEMENT EXECUTE FUNCTION fidelity_stat_rollup_clear();

CREATE TRIGGER fidelity_divergence_total_insert AFTER INSERT ON fidelity_divergence
  REFERENCING NEW TABLE AS new_divergences FOR EACH STATEMENT EXECUTE FUNCTION fidelity_divergence_total_add();
CREATE TRIGGER fidelity_divergence_total_update AFTER UPDATE ON fidelity_divergence
  REFERENCING OLD TABLE AS old_divergences NEW TABLE AS new_divergences FOR EACH STATEMENT EXECUTE FUNCTION fidelity_divergence_total_recompute();
CREATE TRIGGER fidelity_divergence_total_delete AFTER DELETE ON fidelity_divergence
  REFERENCING OLD TABLE AS old_divergences FOR EACH STATEMENT EXECUTE FUNCTION fidelity_divergence_total_recompute();
CREATE TRIGGER fidelity_divergence_total_truncate AFTER TRUNCATE ON fidelity_divergence
  FOR EACH STATEMENT EXECUTE FUNCTION fidelity_divergence_total_clear();

-- The rows already stored.
INSERT INTO fidelity_tool_total ("runId", phase, tool, comparisons, "scoreSum", exact, "errorAgree", invalid, "bothErrors")
SELECT "runId", phase, tool, sum(comparisons), sum("scoreSum"), sum(exact), sum("errorAgree"), sum(invalid), sum("bothErrors")
FROM fidelity_stat GROUP BY 1, 2, 3;

INSERT INTO fidelity_step_rollup ("runId", phase, width, bucket, "minStep", "maxStep", comparisons, "scoreSum", exact, "errorAgree", invalid, "bothErrors")
SELECT s."runId", s.phase, w.width, floor(s.step::float8 / w.width)::int, min(s.step), max(s.step),
  sum(s.comparisons), sum(s."scoreSum"), sum(s.exact), sum(s."errorAgree"), sum(s.invalid), sum(s."bothErrors")
FROM fidelity_stat s CROSS JOIN unnest(fidelity_rollup_widths()) AS w(width)
GROUP BY 1, 2, 3, 4;

INSERT INTO fidelity_divergence_total ("runId", phase, tool, path, rehearsed, "real", count, "lastStep")
SELECT "runId", phase, tool, path, rehearsed, "real", sum(count), max(step)
FROM fidelity_divergence GROUP BY 1, 2, 3, 4, 5, 6;

-- A chart reads its rollup buckets by an index-only scan: the value columns ride in the primary key's
-- index (a 40-key panel read 25,000 rows on as many scattered heap pages, issue 25).
ALTER TABLE "metric_rollup" DROP CONSTRAINT "metric_rollup_pkey",
  ADD CONSTRAINT "metric_rollup_pkey" PRIMARY KEY ("runId", "key", "width", "bucket") INCLUDE ("n", "sumStep", "sum", "min", "max", "maxTs");

ANALYZE fidelity_tool_total;
ANALYZE fidelity_step_rollup;
ANALYZE fidelity_divergence_total;
