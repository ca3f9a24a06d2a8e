-- AlterTable
ALTER TABLE "SetupPage" ADD COLUMN     "shotBoxes" JSONB,
ADD COLUMN     "shotHeight" INTEGER,
ADD COLUMN     "shotImage" BYTEA,
ADD COLUMN     "shotWidth" INTEGER;
