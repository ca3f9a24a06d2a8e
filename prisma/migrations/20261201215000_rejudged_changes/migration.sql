-- CreateTable
CREATE TABLE "RejudgedChange" (
    "id" TEXT NOT NULL,
    "trackerId" TEXT NOT NULL,
    "entityId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "capturedAt" TIMESTAMP(3) NOT NULL,
    "materiality" "ChangeMateriality" NOT NULL,
    "delta" JSONB NOT NULL,
    "decisions" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RejudgedChange_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RejudgedChange_trackerId_version_capturedAt_idx" ON "RejudgedChange"("trackerId", "version", "capturedAt");

-- CreateIndex
CREATE UNIQUE INDEX "RejudgedChange_runId_entityId_version_key" ON "RejudgedChange"("runId", "entityId", "version");

-- AddForeignKey
ALTER TABLE "RejudgedChange" ADD CONSTRAINT "RejudgedChange_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RejudgedChange" ADD CONSTRAINT "RejudgedChange_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "TrackedEntity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RejudgedChange" ADD CONSTRAINT "RejudgedChange_runId_fkey" FOREIGN KEY ("runId") REFERENCES "RefreshRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;
