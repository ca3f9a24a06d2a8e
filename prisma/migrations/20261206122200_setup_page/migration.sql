-- CreateTable
CREATE TABLE "SetupPage" (
    "sessionId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "html" TEXT NOT NULL,
    "truncated" BOOLEAN NOT NULL DEFAULT false,
    "readAt" TIMESTAMP(3) NOT NULL,
    "earlierHtml" TEXT,
    "earlierReadAt" TIMESTAMP(3),
    "proposals" JSONB,

    CONSTRAINT "SetupPage_pkey" PRIMARY KEY ("sessionId")
);

-- AddForeignKey
ALTER TABLE "SetupPage" ADD CONSTRAINT "SetupPage_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "SetupSession"("id") ON DELETE CASCADE ON UPDATE CASCADE;
