-- CreateTable
CREATE TABLE "CalendarCache" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "urlHash" TEXT NOT NULL,
    "etag" TEXT,
    "lastModified" TEXT,
    "body" TEXT,
    "bodyHash" TEXT,
    "bytes" INTEGER,
    "occurrences" JSONB,
    "expandedFrom" TIMESTAMP(3),
    "expandedUntil" TIMESTAMP(3),
    "fetchedAt" TIMESTAMP(3),
    "checkedAt" TIMESTAMP(3),
    "error" TEXT,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "nextFetchAt" TIMESTAMP(3),
    "leaseToken" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CalendarCache_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "CalendarCache_userId_urlHash_key" ON "CalendarCache"("userId", "urlHash");

-- AddForeignKey
ALTER TABLE "CalendarCache" ADD CONSTRAINT "CalendarCache_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
