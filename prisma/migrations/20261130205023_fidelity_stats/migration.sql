-- CreateTable
CREATE TABLE "fidelity_stat" (
    "runId" TEXT NOT NULL,
    "phase" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "tool" TEXT NOT NULL,
    "comparisons" INTEGER NOT NULL,
    "scoreSum" DOUBLE PRECISION NOT NULL,
    "exact" INTEGER NOT NULL,
    "errorAgree" INTEGER NOT NULL,
    "invalid" INTEGER NOT NULL,
    "bothErrors" INTEGER NOT NULL,

    CONSTRAINT "fidelity_stat_pkey" PRIMARY KEY ("runId","phase","step","tool")
);

-- CreateTable
CREATE TABLE "fidelity_divergence" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "phase" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "tool" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "rehearsed" TEXT,
    "real" TEXT,
    "count" INTEGER NOT NULL,
    "examples" JSONB NOT NULL,

    CONSTRAINT "fidelity_divergence_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "fidelity_divergence_runId_phase_step_idx" ON "fidelity_divergence"("runId", "phase", "step");

-- AddForeignKey
ALTER TABLE "fidelity_stat" ADD CONSTRAINT "fidelity_stat_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "fidelity_divergence" ADD CONSTRAINT "fidelity_divergence_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: per-step fidelity of the runs committed before this table existed (their turns carry no
-- divergence lists, so fidelity_divergence starts empty for them).
INSERT INTO "fidelity_stat" ("runId", "phase", "step", "tool", "comparisons", "scoreSum", "exact", "errorAgree", "invalid", "bothErrors")
SELECT t."runId", t.phase, t.step, coalesce(u."toolCalls"->>'name', '(unknown tool)'), count(*)::int,
  coalesce(sum((u.fidelity->>'score')::float8), 0),
  (count(*) FILTER (WHERE u.fidelity->>'exact' = 'true'))::int,
  (count(*) FILTER (WHERE u.fidelity->>'errorAgreement' = 'true'))::int,
  (count(*) FILTER (WHERE u.fidelity->>'outcome' = 'invalid_rehearsal'))::int,
  (count(*) FILTER (WHERE u.fidelity->>'outcome' = 'both_errors'))::int
FROM "trajectory" t JOIN "turn" u ON u."trajectoryId" = t.id
WHERE u.fidelity IS NOT NULL AND u.role IN ('rehearse', 'environment', 'simulator') AND jsonb_typeof(u.fidelity->'score') = 'number'
GROUP BY t."runId", t.phase, t.step, coalesce(u."toolCalls"->>'name', '(unknown tool)');
