-- CreateTable
CREATE TABLE "BoundContextValue" (
    "trackerId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "definitionVersion" INTEGER NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "fileId" TEXT NOT NULL,
    "fileName" TEXT NOT NULL,
    "location" TEXT NOT NULL,
    "quote" TEXT NOT NULL,
    "removedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "BoundContextValue_pkey" PRIMARY KEY ("trackerId","name")
);

-- CreateIndex
CREATE INDEX "BoundContextValue_userId_trackerId_idx" ON "BoundContextValue"("userId", "trackerId");

-- AddForeignKey
ALTER TABLE "BoundContextValue" ADD CONSTRAINT "BoundContextValue_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;
