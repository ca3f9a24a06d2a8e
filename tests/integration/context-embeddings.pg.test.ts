import { describe } from "vitest";
import { describeContextEmbeddings } from "../helpers/context-embeddings";
import { createPostgresTestDb, hasPostgres } from "../helpers/db";

/** Context files (docs/context-files.md): embeddings and hybrid retrieval on PostgreSQL without pgvector — the same SQL as on PGlite. */
describe.skipIf(!hasPostgres)("on PostgreSQL", () => {
  describeContextEmbeddings("PostgreSQL", async () => {
    const pg = await createPostgresTestDb();
    return { db: pg.db, close: pg.drop };
  });
});
