-- AlterTable
ALTER TABLE "node" ADD COLUMN     "createdById" TEXT;

-- AddForeignKey
ALTER TABLE "node" ADD CONSTRAINT "node_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;

