-- AlterTable
ALTER TABLE "run" ADD COLUMN     "evaluatedCheckpointId" TEXT;

-- AlterTable
ALTER TABLE "checkpoint" ADD COLUMN     "deletedAt" TIMESTAMP(3),
ADD COLUMN     "deletedReason" TEXT;

-- CreateIndex
CREATE INDEX "run_evaluatedCheckpointId_idx" ON "run"("evaluatedCheckpointId");

-- AddForeignKey
ALTER TABLE "run" ADD CONSTRAINT "run_evaluatedCheckpointId_fkey" FOREIGN KEY ("evaluatedCheckpointId") REFERENCES "checkpoint"("id") ON DELETE SET NULL ON UPDATE CASCADE;


-- A checkpoint marked deleted (or found missing on its node) changes what its run page shows.
CREATE TRIGGER checkpoint_notify_update AFTER UPDATE ON "checkpoint"
  FOR EACH ROW WHEN (OLD."deletedAt" IS DISTINCT FROM NEW."deletedAt") EXECUTE FUNCTION envace_notify_checkpoint();
