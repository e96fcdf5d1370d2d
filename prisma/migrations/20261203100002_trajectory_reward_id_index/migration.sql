-- DropIndex
DROP INDEX "trajectory_runId_reward_idx";

-- CreateIndex
CREATE INDEX "trajectory_runId_reward_id_idx" ON "trajectory"("runId", "reward", "id");

