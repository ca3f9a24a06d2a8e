-- AlterTable
ALTER TABLE "UserSettings" ADD COLUMN     "feedSeenAt" TIMESTAMP(3),
ADD COLUMN     "feedSeenBefore" TIMESTAMP(3);
