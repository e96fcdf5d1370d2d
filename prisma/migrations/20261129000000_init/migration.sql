-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "user" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "emailVerified" BOOLEAN NOT NULL DEFAULT false,
    "image" TEXT,
    "role" TEXT NOT NULL DEFAULT 'member',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "user_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session" (
    "id" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "token" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "ipAddress" TEXT,
    "userAgent" TEXT,
    "userId" TEXT NOT NULL,

    CONSTRAINT "session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "account" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "providerId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "accessToken" TEXT,
    "refreshToken" TEXT,
    "idToken" TEXT,
    "accessTokenExpiresAt" TIMESTAMP(3),
    "refreshTokenExpiresAt" TIMESTAMP(3),
    "scope" TEXT,
    "password" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "verification" (
    "id" TEXT NOT NULL,
    "identifier" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "verification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_token" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "api_token_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "node" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "baseUrl" TEXT NOT NULL,
    "apiKeyEnc" TEXT,
    "models" TEXT[],
    "capabilities" JSONB NOT NULL DEFAULT '{}',
    "health" TEXT NOT NULL DEFAULT 'unknown',
    "healthDetail" TEXT,
    "lastSeenAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "node_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dataset" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "instanceCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dataset_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "instance" (
    "id" TEXT NOT NULL,
    "datasetId" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "split" TEXT NOT NULL,
    "data" JSONB NOT NULL,

    CONSTRAINT "instance_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "config" JSONB NOT NULL,
    "configVersion" INTEGER NOT NULL,
    "paradigm" TEXT NOT NULL,
    "policyNode" TEXT NOT NULL,
    "tags" TEXT[],
    "progressStep" INTEGER NOT NULL DEFAULT 0,
    "totalSteps" INTEGER NOT NULL,
    "etaSeconds" DOUBLE PRECISION,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "error" TEXT,
    "latestMetrics" JSONB NOT NULL DEFAULT '{}',
    "bestMetrics" JSONB NOT NULL DEFAULT '{}',
    "workerId" TEXT,
    "heartbeatAt" TIMESTAMP(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "parentRunId" TEXT,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_log" (
    "id" BIGSERIAL NOT NULL,
    "runId" TEXT NOT NULL,
    "ts" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "level" TEXT NOT NULL,
    "message" TEXT NOT NULL,

    CONSTRAINT "run_log_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "step" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'train',
    "startedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3) NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "metrics" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "step_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "metric_point" (
    "runId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "ts" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "metric_point_pkey" PRIMARY KEY ("runId","key","step")
);

-- CreateTable
CREATE TABLE "trajectory" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "phase" TEXT NOT NULL DEFAULT 'train',
    "instanceId" TEXT NOT NULL,
    "groupId" TEXT NOT NULL,
    "rolloutIndex" INTEGER NOT NULL,
    "paradigm" TEXT NOT NULL,
    "reward" DOUBLE PRECISION NOT NULL,
    "outcome" TEXT NOT NULL,
    "terminationReason" TEXT NOT NULL,
    "actTokens" INTEGER NOT NULL DEFAULT 0,
    "rehearseTokens" INTEGER NOT NULL DEFAULT 0,
    "numTurns" INTEGER NOT NULL DEFAULT 0,
    "fidelity" DOUBLE PRECISION,
    "summary" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "trajectory_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "turn" (
    "id" TEXT NOT NULL,
    "trajectoryId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "toolCalls" JSONB,
    "rehearsedResponse" TEXT,
    "realResponse" TEXT,
    "fidelity" JSONB,
    "errorCode" TEXT,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "responseTokens" INTEGER NOT NULL DEFAULT 0,
    "advantage" DOUBLE PRECISION,

    CONSTRAINT "turn_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "checklist_verdict" (
    "id" TEXT NOT NULL,
    "trajectoryId" TEXT NOT NULL,
    "userTurn" INTEGER NOT NULL,
    "turnIndex" INTEGER,
    "itemId" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "weight" DOUBLE PRECISION NOT NULL,
    "passed" BOOLEAN NOT NULL,
    "callFailed" BOOLEAN NOT NULL DEFAULT false,
    "analysis" JSONB,

    CONSTRAINT "checklist_verdict_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "checkpoint" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "nodeName" TEXT NOT NULL,
    "statePath" TEXT NOT NULL,
    "samplerPath" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "report" (
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL DEFAULT '',
    "runIds" TEXT[],
    "snapshot" JSONB,
    "frozenAt" TIMESTAMP(3),
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "report_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "share_link" (
    "id" TEXT NOT NULL,
    "reportId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "share_link_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "user_email_key" ON "user"("email");

-- CreateIndex
CREATE UNIQUE INDEX "session_token_key" ON "session"("token");

-- CreateIndex
CREATE INDEX "session_userId_idx" ON "session"("userId");

-- CreateIndex
CREATE INDEX "account_userId_idx" ON "account"("userId");

-- CreateIndex
CREATE INDEX "verification_identifier_idx" ON "verification"("identifier");

-- CreateIndex
CREATE UNIQUE INDEX "api_token_tokenHash_key" ON "api_token"("tokenHash");

-- CreateIndex
CREATE INDEX "api_token_userId_idx" ON "api_token"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "node_name_key" ON "node"("name");

-- CreateIndex
CREATE UNIQUE INDEX "dataset_name_key" ON "dataset"("name");

-- CreateIndex
CREATE INDEX "instance_datasetId_split_idx" ON "instance"("datasetId", "split");

-- CreateIndex
CREATE UNIQUE INDEX "instance_datasetId_externalId_key" ON "instance"("datasetId", "externalId");

-- CreateIndex
CREATE INDEX "run_createdAt_idx" ON "run"("createdAt");

-- CreateIndex
CREATE INDEX "run_status_createdAt_idx" ON "run"("status", "createdAt");

-- CreateIndex
CREATE INDEX "run_log_runId_id_idx" ON "run_log"("runId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "step_runId_kind_index_key" ON "step"("runId", "kind", "index");

-- CreateIndex
CREATE INDEX "trajectory_runId_step_idx" ON "trajectory"("runId", "step");

-- CreateIndex
CREATE INDEX "trajectory_runId_instanceId_idx" ON "trajectory"("runId", "instanceId");

-- CreateIndex
CREATE INDEX "trajectory_runId_reward_idx" ON "trajectory"("runId", "reward");

-- CreateIndex
CREATE UNIQUE INDEX "trajectory_runId_phase_step_groupId_rolloutIndex_key" ON "trajectory"("runId", "phase", "step", "groupId", "rolloutIndex");

-- CreateIndex
CREATE UNIQUE INDEX "turn_trajectoryId_index_key" ON "turn"("trajectoryId", "index");

-- CreateIndex
CREATE INDEX "checklist_verdict_trajectoryId_idx" ON "checklist_verdict"("trajectoryId");

-- CreateIndex
CREATE UNIQUE INDEX "checkpoint_runId_step_key" ON "checkpoint"("runId", "step");

-- CreateIndex
CREATE UNIQUE INDEX "share_link_tokenHash_key" ON "share_link"("tokenHash");

-- AddForeignKey
ALTER TABLE "session" ADD CONSTRAINT "session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account" ADD CONSTRAINT "account_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_token" ADD CONSTRAINT "api_token_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "instance" ADD CONSTRAINT "instance_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "dataset"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run" ADD CONSTRAINT "run_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "user"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_log" ADD CONSTRAINT "run_log_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "step" ADD CONSTRAINT "step_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "trajectory" ADD CONSTRAINT "trajectory_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "turn" ADD CONSTRAINT "turn_trajectoryId_fkey" FOREIGN KEY ("trajectoryId") REFERENCES "trajectory"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checklist_verdict" ADD CONSTRAINT "checklist_verdict_trajectoryId_fkey" FOREIGN KEY ("trajectoryId") REFERENCES "trajectory"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkpoint" ADD CONSTRAINT "checkpoint_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "report" ADD CONSTRAINT "report_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "user"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "share_link" ADD CONSTRAINT "share_link_reportId_fkey" FOREIGN KEY ("reportId") REFERENCES "report"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Change signals for live UI updates (LISTEN envace_events). Identical payloads in one transaction are
-- delivered once, so a batch of log lines costs one notification per run. The migration runner splits
-- statements on every semicolon, so the function bodies spell theirs as \073 inside E-strings.
CREATE OR REPLACE FUNCTION envace_notify_run() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN PERFORM pg_notify(''envace_events'', json_build_object(''t'', ''run'', ''id'', NEW.id, ''status'', NEW.status)::text)\073 RETURN NULL\073 END\073';

CREATE TRIGGER run_notify AFTER INSERT OR UPDATE ON "run"
  FOR EACH ROW EXECUTE FUNCTION envace_notify_run();

CREATE OR REPLACE FUNCTION envace_notify_log() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN PERFORM pg_notify(''envace_events'', json_build_object(''t'', ''log'', ''id'', NEW."runId")::text)\073 RETURN NULL\073 END\073';

CREATE TRIGGER run_log_notify AFTER INSERT ON "run_log"
  FOR EACH ROW EXECUTE FUNCTION envace_notify_log();

CREATE OR REPLACE FUNCTION envace_notify_node() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN PERFORM pg_notify(''envace_events'', json_build_object(''t'', ''node'', ''id'', NEW.id)::text)\073 RETURN NULL\073 END\073';

CREATE TRIGGER node_notify AFTER INSERT OR UPDATE ON "node"
  FOR EACH ROW EXECUTE FUNCTION envace_notify_node();
