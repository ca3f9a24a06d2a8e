import { describeContextEmbeddings } from "../helpers/context-embeddings";
import { createTestDb } from "../helpers/db";

/** Context files (docs/context-files.md): embeddings and hybrid retrieval on PGlite (the same scenarios run on PostgreSQL in the .pg file). */
describeContextEmbeddings("PGlite", createTestDb);
