-- CreateIndex
CREATE INDEX "trajectory_runId_terminationReason_step_idx" ON "trajectory"("runId", "terminationReason", "step");

