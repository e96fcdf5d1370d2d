-- CreateTable
CREATE TABLE "metric_rollup" (
    "runId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "width" INTEGER NOT NULL,
    "bucket" INTEGER NOT NULL,
    "n" INTEGER NOT NULL,
    "sumStep" DOUBLE PRECISION NOT NULL,
    "sum" DOUBLE PRECISION NOT NULL,
    "min" DOUBLE PRECISION NOT NULL,
    "max" DOUBLE PRECISION NOT NULL,
    "maxTs" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "metric_rollup_pkey" PRIMARY KEY ("runId","key","width","bucket")
);


-- Function bodies are E'' strings with \073 for the semicolon (the migration runner splits statements on it).
-- The widths every point is rolled up at (also in server/features/metrics/rollup.ts).
CREATE FUNCTION metric_rollup_widths() RETURNS int[] LANGUAGE sql IMMUTABLE AS E' SELECT ARRAY[4, 32, 256, 2048] ';

-- New points: add them to their buckets (count, sums, min, max combine without reading other points).
CREATE FUNCTION metric_rollup_add() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO metric_rollup ("runId", key, width, bucket, n, "sumStep", sum, min, max, "maxTs")
  SELECT p."runId", p.key, w.width, floor(p.step::float8 / w.width)::int, count(*)::int, sum(p.step)::float8, sum(p.value), min(p.value), max(p.value), max(p.ts)
  FROM new_points p CROSS JOIN unnest(metric_rollup_widths()) AS w(width)
  GROUP BY 1, 2, 3, 4
  ON CONFLICT ("runId", key, width, bucket) DO UPDATE SET
    n = metric_rollup.n + excluded.n,
    "sumStep" = metric_rollup."sumStep" + excluded."sumStep",
    sum = metric_rollup.sum + excluded.sum,
    min = least(metric_rollup.min, excluded.min),
    max = greatest(metric_rollup.max, excluded.max),
    "maxTs" = greatest(metric_rollup."maxTs", excluded."maxTs")\073
  RETURN NULL\073
END ';

-- Changed or removed points: min and max cannot be taken back, so the touched buckets are recomputed.
CREATE FUNCTION metric_rollup_recompute() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS metric_rollup_touched ("runId" text, key text, width int, bucket int) ON COMMIT DROP\073
  TRUNCATE metric_rollup_touched\073
  INSERT INTO metric_rollup_touched
  SELECT DISTINCT p."runId", p.key, w.width, floor(p.step::float8 / w.width)::int
  FROM old_points p CROSS JOIN unnest(metric_rollup_widths()) AS w(width)\073
  IF TG_OP = ''UPDATE'' THEN
    INSERT INTO metric_rollup_touched
    SELECT DISTINCT p."runId", p.key, w.width, floor(p.step::float8 / w.width)::int
    FROM new_points p CROSS JOIN unnest(metric_rollup_widths()) AS w(width)\073
  END IF\073
  DELETE FROM metric_rollup r USING metric_rollup_touched t
  WHERE r."runId" = t."runId" AND r.key = t.key AND r.width = t.width AND r.bucket = t.bucket\073
  INSERT INTO metric_rollup ("runId", key, width, bucket, n, "sumStep", sum, min, max, "maxTs")
  SELECT t."runId", t.key, t.width, t.bucket, count(*)::int, sum(p.step)::float8, sum(p.value), min(p.value), max(p.value), max(p.ts)
  FROM (SELECT DISTINCT * FROM metric_rollup_touched) t
  JOIN metric_point p ON p."runId" = t."runId" AND p.key = t.key AND p.step >= t.bucket * t.width AND p.step < (t.bucket + 1) * t.width
  GROUP BY 1, 2, 3, 4\073
  RETURN NULL\073
END ';

CREATE FUNCTION metric_rollup_clear() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  TRUNCATE metric_rollup\073
  RETURN NULL\073
END ';

CREATE TRIGGER metric_point_rollup_insert AFTER INSERT ON metric_point
  REFERENCING NEW TABLE AS new_points FOR EACH STATEMENT EXECUTE FUNCTION metric_rollup_add();
CREATE TRIGGER metric_point_rollup_update AFTER UPDATE ON metric_point
  REFERENCING OLD TABLE AS old_points NEW TABLE AS new_points FOR EACH STATEMENT EXECUTE FUNCTION metric_rollup_recompute();
CREATE TRIGGER metric_point_rollup_delete AFTER DELETE ON metric_point
  REFERENCING OLD TABLE AS old_points FOR EACH STATEMENT EXECUTE FUNCTION metric_rollup_recompute();
CREATE TRIGGER metric_point_rollup_truncate AFTER TRUNCATE ON metric_point
  FOR EACH STATEMENT EXECUTE FUNCTION metric_rollup_clear();

-- The points already stored.
INSERT INTO metric_rollup ("runId", key, width, bucket, n, "sumStep", sum, min, max, "maxTs")
SELECT p."runId", p.key, w.width, floor(p.step::float8 / w.width)::int, count(*)::int, sum(p.step)::float8, sum(p.value), min(p.value), max(p.value), max(p.ts)
FROM metric_point p CROSS JOIN unnest(metric_rollup_widths()) AS w(width)
GROUP BY 1, 2, 3, 4;

-- Planner statistics for the new table now, not at the next autovacuum (a chart would scan it meanwhile).
ANALYZE metric_rollup;
