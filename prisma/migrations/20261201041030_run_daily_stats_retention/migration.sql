-- CreateTable
CREATE TABLE "RunDailyStat" (
    "trackerId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "unchanged" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "modelCalls" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "capabilityCalls" INTEGER NOT NULL DEFAULT 0,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "RunDailyStat_pkey" PRIMARY KEY ("trackerId","day")
);

-- AddForeignKey
ALTER TABLE "RunDailyStat" ADD CONSTRAINT "RunDailyStat_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;
