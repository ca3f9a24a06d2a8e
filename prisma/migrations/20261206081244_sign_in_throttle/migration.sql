-- The account sign-in throttle (server/auth/sign-in-throttle.ts): attempts per hashed email since the last successful
-- sign-in, and when the last one was; the delay before the next attempt is derived from the two.

-- CreateTable
CREATE TABLE "SignInThrottle" (
    "emailHash" TEXT NOT NULL,
    "failures" INTEGER NOT NULL,
    "lastAttemptAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SignInThrottle_pkey" PRIMARY KEY ("emailHash")
);

-- CreateIndex
CREATE INDEX "SignInThrottle_lastAttemptAt_idx" ON "SignInThrottle"("lastAttemptAt");
