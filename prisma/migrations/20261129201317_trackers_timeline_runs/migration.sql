-- CreateEnum
CREATE TYPE "TrackerStatus" AS ENUM ('draft', 'active', 'paused', 'archived');

-- CreateEnum
CREATE TYPE "ChangeMateriality" AS ENUM ('material', 'notable', 'baseline');

-- CreateEnum
CREATE TYPE "RefreshTrigger" AS ENUM ('manual', 'cron', 'worker', 'agent', 'api', 'setup');

-- CreateEnum
CREATE TYPE "RefreshRunStatus" AS ENUM ('pending', 'running', 'completed', 'failed', 'skipped');

-- CreateTable
CREATE TABLE "Tracker" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "capability" TEXT NOT NULL,
    "capabilityInput" JSONB NOT NULL,
    "status" "TrackerStatus" NOT NULL DEFAULT 'draft',
    "lockedVersion" INTEGER,
    "scheduleMinutes" INTEGER NOT NULL DEFAULT 60,
    "nextRunAt" TIMESTAMP(3),
    "lastRunAt" TIMESTAMP(3),
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "leaseToken" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Tracker_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TrackerDefinition" (
    "id" TEXT NOT NULL,
    "trackerId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "definition" JSONB NOT NULL,
    "lockedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TrackerDefinition_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TrackedEntity" (
    "id" TEXT NOT NULL,
    "trackerId" TEXT NOT NULL,
    "entityKey" TEXT NOT NULL,
    "firstSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TrackedEntity_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EntityCurrentState" (
    "entityId" TEXT NOT NULL,
    "fields" JSONB NOT NULL,
    "contentHash" TEXT NOT NULL,
    "definitionVersion" INTEGER NOT NULL,
    "lastCheckedAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EntityCurrentState_pkey" PRIMARY KEY ("entityId")
);

-- CreateTable
CREATE TABLE "EntityChange" (
    "id" TEXT NOT NULL,
    "entityId" TEXT NOT NULL,
    "trackerId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "capturedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delta" JSONB NOT NULL,
    "materiality" "ChangeMateriality" NOT NULL,
    "decisions" JSONB NOT NULL,
    "definitionVersion" INTEGER NOT NULL,

    CONSTRAINT "EntityChange_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RefreshRun" (
    "id" TEXT NOT NULL,
    "trackerId" TEXT NOT NULL,
    "trigger" "RefreshTrigger" NOT NULL,
    "idempotencyKey" TEXT,
    "status" "RefreshRunStatus" NOT NULL DEFAULT 'pending',
    "outcome" TEXT,
    "summary" TEXT,
    "definitionVersion" INTEGER,
    "steps" JSONB NOT NULL DEFAULT '[]',
    "modelCalls" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "error" JSONB,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "RefreshRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CapabilityCall" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "callKey" TEXT NOT NULL,
    "capability" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "errorCode" TEXT,
    "httpStatus" INTEGER,
    "requests" INTEGER NOT NULL,
    "bytes" INTEGER NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CapabilityCall_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Tracker_userId_createdAt_idx" ON "Tracker"("userId", "createdAt");

-- CreateIndex
CREATE INDEX "Tracker_status_nextRunAt_idx" ON "Tracker"("status", "nextRunAt");

-- CreateIndex
CREATE UNIQUE INDEX "TrackerDefinition_trackerId_version_key" ON "TrackerDefinition"("trackerId", "version");

-- CreateIndex
CREATE UNIQUE INDEX "TrackedEntity_trackerId_entityKey_key" ON "TrackedEntity"("trackerId", "entityKey");

-- CreateIndex
CREATE INDEX "EntityChange_trackerId_capturedAt_id_idx" ON "EntityChange"("trackerId", "capturedAt", "id");

-- CreateIndex
CREATE INDEX "EntityChange_entityId_capturedAt_id_idx" ON "EntityChange"("entityId", "capturedAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "EntityChange_runId_entityId_key" ON "EntityChange"("runId", "entityId");

-- CreateIndex
CREATE INDEX "RefreshRun_trackerId_createdAt_idx" ON "RefreshRun"("trackerId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "RefreshRun_trackerId_idempotencyKey_key" ON "RefreshRun"("trackerId", "idempotencyKey");

-- CreateIndex
CREATE UNIQUE INDEX "CapabilityCall_runId_callKey_key" ON "CapabilityCall"("runId", "callKey");

-- AddForeignKey
ALTER TABLE "Tracker" ADD CONSTRAINT "Tracker_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TrackerDefinition" ADD CONSTRAINT "TrackerDefinition_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TrackedEntity" ADD CONSTRAINT "TrackedEntity_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EntityCurrentState" ADD CONSTRAINT "EntityCurrentState_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "TrackedEntity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EntityChange" ADD CONSTRAINT "EntityChange_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "TrackedEntity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EntityChange" ADD CONSTRAINT "EntityChange_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EntityChange" ADD CONSTRAINT "EntityChange_runId_fkey" FOREIGN KEY ("runId") REFERENCES "RefreshRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RefreshRun" ADD CONSTRAINT "RefreshRun_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CapabilityCall" ADD CONSTRAINT "CapabilityCall_runId_fkey" FOREIGN KEY ("runId") REFERENCES "RefreshRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;
