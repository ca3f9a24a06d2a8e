-- AlterTable
ALTER TABLE "Tracker" ADD COLUMN     "attentionReason" TEXT,
ADD COLUMN     "fieldHealth" JSONB;

-- AlterTable
ALTER TABLE "TrackerNotificationRoute" ADD COLUMN     "attentionNotified" BOOLEAN NOT NULL DEFAULT false;
