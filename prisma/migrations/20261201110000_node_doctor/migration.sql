-- CreateTable
CREATE TABLE "node_doctor_report" (
    "id" TEXT NOT NULL,
    "nodeId" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "ok" BOOLEAN NOT NULL,
    "report" JSONB NOT NULL,
    "checkedAt" TIMESTAMP(3) NOT NULL,
    "checkedBy" TEXT NOT NULL,

    CONSTRAINT "node_doctor_report_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "node_doctor_report_nodeId_model_key" ON "node_doctor_report"("nodeId", "model");

-- AddForeignKey
ALTER TABLE "node_doctor_report" ADD CONSTRAINT "node_doctor_report_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "node"("id") ON DELETE CASCADE ON UPDATE CASCADE;

