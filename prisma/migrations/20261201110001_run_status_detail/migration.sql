-- AlterTable
ALTER TABLE "run" ADD COLUMN     "statusDetail" TEXT;

