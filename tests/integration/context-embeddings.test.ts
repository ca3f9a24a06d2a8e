import { describeContextEmbeddings } from "../helpers/context-embeddings";
import { createTestDb } from "../helpers/db";

/** Issue 16: embeddings and hybrid retrieval on PGlite (the same scenarios run on PostgreSQL in the .pg file). */
describeContextEmbeddings("PGlite", createTestDb);
