-- AlterTable
ALTER TABLE "EntityCurrentState" ADD COLUMN     "missingRuns" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "TrackedEntity" ADD COLUMN     "goneAt" TIMESTAMP(3);
