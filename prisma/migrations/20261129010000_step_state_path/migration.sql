-- AlterTable
ALTER TABLE "step" ADD COLUMN     "statePath" TEXT;

