-- AlterTable
ALTER TABLE "run" ADD COLUMN     "studyCell" JSONB,
ADD COLUMN     "studyId" TEXT;

-- CreateTable
CREATE TABLE "study" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "baseConfig" JSONB NOT NULL,
    "grid" JSONB NOT NULL,
    "seeds" INTEGER[],
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "study_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "study_createdAt_idx" ON "study"("createdAt");

-- CreateIndex
CREATE INDEX "run_studyId_idx" ON "run"("studyId");

-- AddForeignKey
ALTER TABLE "run" ADD CONSTRAINT "run_studyId_fkey" FOREIGN KEY ("studyId") REFERENCES "study"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "study" ADD CONSTRAINT "study_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "user"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

