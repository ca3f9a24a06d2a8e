-- Context files (issue 16, DESIGN §3): files a person attaches to a tracker, their chunks with a full-text index,
-- and the excerpts a change cited.

-- AlterTable
ALTER TABLE "EntityChange" ADD COLUMN     "citations" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "ContextFile" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "trackerId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "mediaType" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "content" BYTEA NOT NULL,
    "text" TEXT NOT NULL,
    "units" INTEGER NOT NULL,
    "chunkCount" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'indexed',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ContextFile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ContextChunk" (
    "id" TEXT NOT NULL,
    "fileId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "trackerId" TEXT NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "page" INTEGER,
    "location" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    -- Full text, computed by the database (same SQL on PGlite and PostgreSQL); Prisma declares it Unsupported.
    "searchVector" tsvector GENERATED ALWAYS AS (to_tsvector('english', "text")) STORED,

    CONSTRAINT "ContextChunk_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ContextFile_userId_trackerId_createdAt_idx" ON "ContextFile"("userId", "trackerId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ContextFile_trackerId_name_key" ON "ContextFile"("trackerId", "name");

-- CreateIndex
CREATE INDEX "ContextChunk_userId_trackerId_idx" ON "ContextChunk"("userId", "trackerId");

-- CreateIndex
CREATE INDEX "ContextChunk_searchVector_idx" ON "ContextChunk" USING GIN ("searchVector");

-- CreateIndex
CREATE UNIQUE INDEX "ContextChunk_fileId_ordinal_key" ON "ContextChunk"("fileId", "ordinal");

-- AddForeignKey
ALTER TABLE "ContextFile" ADD CONSTRAINT "ContextFile_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ContextFile" ADD CONSTRAINT "ContextFile_trackerId_fkey" FOREIGN KEY ("trackerId") REFERENCES "Tracker"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ContextChunk" ADD CONSTRAINT "ContextChunk_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "ContextFile"("id") ON DELETE CASCADE ON UPDATE CASCADE;
