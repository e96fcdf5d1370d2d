-- AlterTable
ALTER TABLE "trajectory" ADD COLUMN     "errorCause" TEXT,
ADD COLUMN     "errorKind" TEXT;

-- CreateIndex
CREATE INDEX "trajectory_runId_outcome_idx" ON "trajectory"("runId", "outcome");

-- Backfill: outcome was "success" whenever the episode reward E was above 0 (the reference's won), and
-- "error" for any termination reason containing error, failed, exceeded or invalid (which took in policy
-- failures such as judge_required_failed and act_parse_error). It becomes the benchmark's own verdict
-- (lib/outcomes.ts, worker/engine/outcome.ts): rows are decided again from what they stored.
-- No comment in this file may hold a semicolon (the adapter splits statements at every one of them).

-- 1. Every committed episode starts as a failure.
UPDATE "trajectory" SET "outcome" = 'failure', "errorKind" = NULL, "errorCause" = NULL WHERE "phase" <> 'private';

-- 2. Episodes scored at their end (tau2, BFCL: their last judgement carries the score's detail) succeed at reward 1.0.
UPDATE "trajectory" SET "outcome" = 'success'
WHERE "phase" <> 'private'
  AND ("summary" #> '{judgements,-1,detail}') IS NOT NULL
  AND abs("reward" - 1) <= 1e-6;

-- 3. Checklist episodes succeed when every checklist turn was played and every item passed at some step.
UPDATE "trajectory" t SET "outcome" = 'success'
WHERE t."phase" <> 'private'
  AND (t."summary" #> '{judgements,-1,detail}') IS NULL
  AND t."terminationReason" = 'checklist_complete'
  AND EXISTS (SELECT 1 FROM "checklist_verdict" v WHERE v."trajectoryId" = t.id)
  AND NOT EXISTS (
    SELECT 1 FROM "checklist_verdict" v WHERE v."trajectoryId" = t.id
    GROUP BY v."analysis" ->> 'checklist', v."userTurn", v."itemId"
    HAVING NOT bool_or(v."passed")
  );

-- 4. Episodes whose scorer failed, or that BFCL could not score, are errors.
UPDATE "trajectory" SET
  "outcome" = 'error',
  "errorKind" = 'scoring',
  "errorCause" = 'could not be scored: ' || coalesce(
    regexp_replace("summary" #>> '{judgements,-1,detail,error}', '^scoring failed: ', ''),
    "summary" #>> '{judgements,-1,detail,bfcl,notScoredReason}',
    'unknown')
WHERE "phase" <> 'private'
  AND (("summary" #> '{judgements,-1,detail,error}') IS NOT NULL OR ("summary" #>> '{judgements,-1,detail,bfcl,scored}') = 'false');

-- 5. Episodes that ended on an infrastructure failure are errors, whatever was scored (lib/outcomes.ts errorKindOfTermination).
UPDATE "trajectory" t SET
  "outcome" = 'error',
  "errorKind" = CASE
    WHEN t."terminationReason" LIKE 'environment\_error:%' THEN 'environment'
    WHEN t."terminationReason" IN ('user_error', 'user_stalled', 'user_garbage') THEN 'user_simulator'
    WHEN t."terminationReason" IN ('judge_failed', 'interaction_exception') THEN 'judge'
    WHEN t."terminationReason" = 'simulator_failed' THEN 'tool_simulator'
    WHEN t."terminationReason" = 'generation_failed' THEN 'policy_node'
    ELSE 'task'
  END,
  "errorCause" = CASE
    WHEN t."terminationReason" LIKE 'environment\_error:%' THEN 'environment failed: '
    WHEN t."terminationReason" IN ('user_error', 'user_stalled', 'user_garbage') THEN 'user simulator failed: '
    WHEN t."terminationReason" IN ('judge_failed', 'interaction_exception') THEN 'judge failed: '
    WHEN t."terminationReason" = 'simulator_failed' THEN 'tool simulator failed: '
    WHEN t."terminationReason" = 'generation_failed' THEN 'policy node failed: '
    ELSE 'task cannot be scored: '
  END || left(coalesce(
    -- tau2 kept the failure's detail with its score, environments their own words on the failing turn.
    t."summary" #>> '{judgements,-1,detail,termination,detail}',
    (SELECT u."text" FROM "turn" u WHERE u."trajectoryId" = t.id AND u."role" = 'environment' AND u."errorCode" IS NOT NULL AND u."text" <> '' ORDER BY u."index" DESC LIMIT 1),
    t."terminationReason" || ' (recorded before causes were stored)'), 1000)
WHERE t."phase" <> 'private'
  AND (t."terminationReason" LIKE 'environment\_error:%'
    OR t."terminationReason" IN ('user_error', 'user_stalled', 'user_garbage', 'judge_failed', 'interaction_exception', 'simulator_failed', 'generation_failed', 'empty_checklist'));

-- 6. The avg@k and pass@k metric points measured the reference's won (E above 0): they keep that name.
UPDATE "metric_point" SET "key" = regexp_replace("key", '/(avg|pass)@', '/won_\1@')
WHERE "key" ~ '^(episode|val)/(avg|pass)@[0-9]+$';

UPDATE "step" s SET "metrics" = (
  SELECT jsonb_object_agg(CASE WHEN e.k ~ '^(episode|val)/(avg|pass)@[0-9]+$' THEN regexp_replace(e.k, '/(avg|pass)@', '/won_\1@') ELSE e.k END, e.v)
  FROM jsonb_each(s."metrics") AS e(k, v))
WHERE EXISTS (SELECT 1 FROM jsonb_object_keys(s."metrics") AS k WHERE k ~ '^(episode|val)/(avg|pass)@[0-9]+$');

-- 7. avg@k and pass@k again, by success, over the episodes of the same step that ran.
INSERT INTO "metric_point" ("runId", "key", "step", "value", "ts")
SELECT m."runId", replace(m."key", '/won_avg@', '/avg@'), m."step", a.value, m."ts"
FROM "metric_point" m
CROSS JOIN LATERAL (
  SELECT (count(*) FILTER (WHERE t."outcome" = 'success'))::float8 / nullif(count(*), 0) AS value
  FROM "trajectory" t
  WHERE t."runId" = m."runId" AND t."step" = m."step" AND t."outcome" <> 'error'
    AND t."phase" = CASE WHEN m."key" LIKE 'val/%' THEN 'eval' ELSE 'train' END
) a
WHERE m."key" ~ '^(episode|val)/won_avg@[0-9]+$' AND a.value IS NOT NULL
ON CONFLICT DO NOTHING;

INSERT INTO "metric_point" ("runId", "key", "step", "value", "ts")
SELECT m."runId", replace(m."key", '/won_pass@', '/pass@'), m."step", a.value, m."ts"
FROM "metric_point" m
CROSS JOIN LATERAL (
  SELECT (count(*) FILTER (WHERE g.solved))::float8 / nullif(count(*), 0) AS value
  FROM (
    SELECT bool_or(t."outcome" = 'success') AS solved
    FROM "trajectory" t
    WHERE t."runId" = m."runId" AND t."step" = m."step" AND t."outcome" <> 'error'
      AND t."phase" = CASE WHEN m."key" LIKE 'val/%' THEN 'eval' ELSE 'train' END
    GROUP BY t."groupId"
  ) g
) a
WHERE m."key" ~ '^(episode|val)/won_pass@[0-9]+$' AND a.value IS NOT NULL
ON CONFLICT DO NOTHING;

UPDATE "step" s SET "metrics" = s."metrics" || (
  SELECT jsonb_object_agg(m."key", m."value") FROM "metric_point" m
  WHERE m."runId" = s."runId" AND m."step" = s."index" AND m."key" ~ '^(episode|val)/(avg|pass)@[0-9]+$'
    AND (m."key" LIKE 'val/%') = (s."kind" = 'eval'))
WHERE EXISTS (
  SELECT 1 FROM "metric_point" m
  WHERE m."runId" = s."runId" AND m."step" = s."index" AND m."key" ~ '^(episode|val)/(avg|pass)@[0-9]+$'
    AND (m."key" LIKE 'val/%') = (s."kind" = 'eval'));
