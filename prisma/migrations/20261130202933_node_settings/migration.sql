-- AlterTable
ALTER TABLE "node" ADD COLUMN     "settings" JSONB NOT NULL DEFAULT '{}';

