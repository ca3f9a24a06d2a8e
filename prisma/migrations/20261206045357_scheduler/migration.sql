-- The scheduler's shared state (docs/scheduling.md): periodic jobs claimed once across every process, and the
-- heartbeat of each scheduler (app server, worker, cron route) that /system, /api/health and the tracker page read.

-- CreateTable
CREATE TABLE "SchedulerJob" (
    "name" TEXT NOT NULL,
    "nextRunAt" TIMESTAMP(3) NOT NULL,
    "leaseToken" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "lastStartedAt" TIMESTAMP(3),
    "lastFinishedAt" TIMESTAMP(3),
    "runs" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "SchedulerJob_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "SchedulerInstance" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "seenAt" TIMESTAMP(3) NOT NULL,
    "lastPassAt" TIMESTAMP(3),
    "lastPassMs" INTEGER,
    "lastPassClaimed" INTEGER NOT NULL DEFAULT 0,
    "passes" INTEGER NOT NULL DEFAULT 0,
    "nextPassAt" TIMESTAMP(3),
    "pollMs" INTEGER NOT NULL,
    "stoppedAt" TIMESTAMP(3),

    CONSTRAINT "SchedulerInstance_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SchedulerInstance_seenAt_idx" ON "SchedulerInstance"("seenAt");

-- Runs started by the server's own scheduler (the worker's keep "worker", the cron route's "cron").
ALTER TYPE "RefreshTrigger" ADD VALUE 'scheduler';
