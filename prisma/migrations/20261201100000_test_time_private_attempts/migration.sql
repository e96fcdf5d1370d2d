-- AlterTable
ALTER TABLE "trajectory" ADD COLUMN     "parentId" TEXT;

-- CreateIndex
CREATE INDEX "trajectory_parentId_idx" ON "trajectory"("parentId");

-- AddForeignKey
ALTER TABLE "trajectory" ADD CONSTRAINT "trajectory_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "trajectory"("id") ON DELETE CASCADE ON UPDATE CASCADE;

