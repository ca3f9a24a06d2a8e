-- AlterTable
ALTER TABLE "RefreshRun" ADD COLUMN     "captureId" TEXT,
ADD COLUMN     "replayBasis" JSONB;

-- CreateTable
CREATE TABLE "Capture" (
    "id" TEXT NOT NULL,
    "trackerId" TEXT NOT NULL,
    "entityId" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "data" BYTEA NOT NULL,
    "rawBytes" INTEGER NOT NULL,
    "storedBytes" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Capture_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Capture_trackerId_createdAt_idx" ON "Capture"("trackerId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Capture_entityId_hash_key" ON "Capture"("entityId", "hash");

-- CreateIndex
CREATE INDEX "RefreshRun_captureId_idx" ON "RefreshRun"("captureId");

-- AddForeignKey
ALTER TABLE "RefreshRun" ADD CONSTRAINT "RefreshRun_captureId_fkey" FOREIGN KEY ("captureId") REFERENCES "Capture"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Capture" ADD CONSTRAINT "Capture_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Capture" ADD CONSTRAINT "Capture_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "TrackedEntity"("id") ON DELETE CASCADE ON UPDATE CASCADE;
