-- AlterTable
ALTER TABLE "EntityCurrentState" ADD COLUMN     "observed" JSONB NOT NULL DEFAULT '{}';

-- Existing rows: what the source said last is not known apart from the baseline; start them equal.
UPDATE "EntityCurrentState" SET "observed" = "fields";
