-- CreateTable
CREATE TABLE "node_slot_lease" (
    "id" TEXT NOT NULL,
    "nodeName" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "node_slot_lease_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "node_slot_lease_nodeName_expiresAt_idx" ON "node_slot_lease"("nodeName", "expiresAt");

-- CreateIndex
CREATE INDEX "node_slot_lease_holder_idx" ON "node_slot_lease"("holder");

