/*
  Warnings:

  - You are about to drop the column `pendingHash` on the `FeedEnhancement` table. All the data in the column will be lost.

*/
-- AlterTable
ALTER TABLE "FeedEnhancement" DROP COLUMN "pendingHash";
