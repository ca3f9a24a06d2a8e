-- Context-file embeddings (issue 16, DESIGN §3): a portable double precision[] per chunk rather than pgvector,
-- so this is the same SQL on PGlite and on PostgreSQL servers without the extension; cosine similarity is an exact
-- scan over one tracker's chunks (README "Context files"). The file row says whether its vectors are there.

-- AlterTable
ALTER TABLE "ContextChunk" ADD COLUMN     "embedding" DOUBLE PRECISION[];

-- AlterTable
ALTER TABLE "ContextFile" ADD COLUMN     "embeddingError" TEXT,
ADD COLUMN     "embeddingModel" TEXT,
ADD COLUMN     "embeddingStatus" TEXT NOT NULL DEFAULT 'off';
