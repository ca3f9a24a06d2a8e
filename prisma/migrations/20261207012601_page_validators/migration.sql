-- AlterTable
ALTER TABLE "Tracker" ADD COLUMN     "pageValidators" JSONB;
