-- CreateEnum
CREATE TYPE "NotificationChannelKind" AS ENUM ('email', 'webhook', 'slack', 'discord');

-- CreateEnum
CREATE TYPE "NotificationDeliveryStatus" AS ENUM ('pending', 'sent', 'failed');

-- CreateTable
CREATE TABLE "ChangeOutbox" (
    "changeId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChangeOutbox_pkey" PRIMARY KEY ("changeId")
);

-- CreateTable
CREATE TABLE "NotificationChannel" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "kind" "NotificationChannelKind" NOT NULL,
    "name" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "secret" TEXT,
    "unsubscribeToken" TEXT NOT NULL,
    "pausedAt" TIMESTAMP(3),
    "pausedReason" TEXT,
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "lastStatus" TEXT,
    "lastError" TEXT,
    "lastDeliveryAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NotificationChannel_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NotificationSettings" (
    "userId" TEXT NOT NULL,
    "material" TEXT NOT NULL DEFAULT 'immediate',
    "notable" TEXT NOT NULL DEFAULT 'digest',
    "failing" BOOLEAN NOT NULL DEFAULT true,
    "quietStartMinute" INTEGER,
    "quietEndMinute" INTEGER,
    "digestHour" INTEGER NOT NULL DEFAULT 8,
    "feedTokenHash" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NotificationSettings_pkey" PRIMARY KEY ("userId")
);

-- CreateTable
CREATE TABLE "TrackerNotificationRoute" (
    "trackerId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "material" TEXT,
    "notable" TEXT,
    "failing" BOOLEAN,
    "feedTokenHash" TEXT,
    "failingNotified" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TrackerNotificationRoute_pkey" PRIMARY KEY ("trackerId")
);

-- CreateTable
CREATE TABLE "NotificationDelivery" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "dedupKey" TEXT NOT NULL,
    "changeId" TEXT,
    "kind" TEXT NOT NULL,
    "notice" JSONB,
    "grouped" BOOLEAN NOT NULL DEFAULT false,
    "status" "NotificationDeliveryStatus" NOT NULL DEFAULT 'pending',
    "dueAt" TIMESTAMP(3) NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "leaseToken" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "log" JSONB NOT NULL DEFAULT '[]',
    "lastError" TEXT,
    "sentAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "NotificationDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InboxItem" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "dedupKey" TEXT NOT NULL,
    "changeId" TEXT,
    "trackerId" TEXT,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "readAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "InboxItem_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ChangeOutbox_createdAt_idx" ON "ChangeOutbox"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "NotificationChannel_unsubscribeToken_key" ON "NotificationChannel"("unsubscribeToken");

-- CreateIndex
CREATE INDEX "NotificationChannel_userId_createdAt_idx" ON "NotificationChannel"("userId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "NotificationSettings_feedTokenHash_key" ON "NotificationSettings"("feedTokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "TrackerNotificationRoute_feedTokenHash_key" ON "TrackerNotificationRoute"("feedTokenHash");

-- CreateIndex
CREATE INDEX "TrackerNotificationRoute_userId_idx" ON "TrackerNotificationRoute"("userId");

-- CreateIndex
CREATE INDEX "NotificationDelivery_status_dueAt_idx" ON "NotificationDelivery"("status", "dueAt");

-- CreateIndex
CREATE INDEX "NotificationDelivery_userId_createdAt_idx" ON "NotificationDelivery"("userId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "NotificationDelivery_channelId_dedupKey_key" ON "NotificationDelivery"("channelId", "dedupKey");

-- CreateIndex
CREATE INDEX "InboxItem_userId_readAt_createdAt_idx" ON "InboxItem"("userId", "readAt", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "InboxItem_userId_dedupKey_key" ON "InboxItem"("userId", "dedupKey");

-- AddForeignKey
ALTER TABLE "ChangeOutbox" ADD CONSTRAINT "ChangeOutbox_changeId_fkey" FOREIGN KEY ("changeId") REFERENCES "EntityChange"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationChannel" ADD CONSTRAINT "NotificationChannel_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationSettings" ADD CONSTRAINT "NotificationSettings_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TrackerNotificationRoute" ADD CONSTRAINT "TrackerNotificationRoute_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationDelivery" ADD CONSTRAINT "NotificationDelivery_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationDelivery" ADD CONSTRAINT "NotificationDelivery_channelId_fkey" FOREIGN KEY ("channelId") REFERENCES "NotificationChannel"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationDelivery" ADD CONSTRAINT "NotificationDelivery_changeId_fkey" FOREIGN KEY ("changeId") REFERENCES "EntityChange"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "InboxItem" ADD CONSTRAINT "InboxItem_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "InboxItem" ADD CONSTRAINT "InboxItem_changeId_fkey" FOREIGN KEY ("changeId") REFERENCES "EntityChange"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "InboxItem" ADD CONSTRAINT "InboxItem_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;
