-- CreateTable
CREATE TABLE "MemberChange" (
    "id" TEXT NOT NULL,
    "entityId" TEXT NOT NULL,
    "trackerId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "capturedAt" TIMESTAMP(3) NOT NULL,
    "delta" JSONB NOT NULL,
    "materiality" "ChangeMateriality" NOT NULL,
    "decisions" JSONB NOT NULL,
    "definitionVersion" INTEGER NOT NULL,

    CONSTRAINT "MemberChange_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "MemberChange_entityId_capturedAt_id_idx" ON "MemberChange"("entityId", "capturedAt", "id");

-- CreateIndex
CREATE INDEX "MemberChange_trackerId_capturedAt_id_idx" ON "MemberChange"("trackerId", "capturedAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "MemberChange_runId_entityId_key" ON "MemberChange"("runId", "entityId");

-- AddForeignKey
ALTER TABLE "MemberChange" ADD CONSTRAINT "MemberChange_entityId_fkey" FOREIGN KEY ("entityId") REFERENCES "TrackedEntity"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MemberChange" ADD CONSTRAINT "MemberChange_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;
