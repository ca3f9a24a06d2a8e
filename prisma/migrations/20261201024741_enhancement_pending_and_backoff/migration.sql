-- AlterTable
ALTER TABLE "FeedEnhancement" ADD COLUMN     "failures" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "pendingHash" TEXT,
ADD COLUMN     "pendingInput" JSONB,
ADD COLUMN     "retryAfter" TIMESTAMP(3);
