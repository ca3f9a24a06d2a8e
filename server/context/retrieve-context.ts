import type { TDb, TTx } from "../db";
import { Prisma } from "../generated/prisma/client";

/** A retrieved excerpt: untrusted text from the person's file and where it came from. */
export type TContextChunk = {
  id: string;
  fileId: string;
  fileName: string;
  location: string;
  page: number | null;
  text: string;
};

export const MAX_QUERY_CHARS = 2_000;

/**
 * The most relevant chunks of ONE tracker's files for a query, by PostgreSQL full-text search (the generated
 * tsvector + GIN index; ranked with ts_rank_cd). Scoped by owner AND tracker in the WHERE clause: another tracker's
 * or another person's files are never read. The query's words are OR-ed (a change description is long; any shared
 * word counts and the rank orders them). When nothing matches but all of the tracker's files fit in `limit`
 * chunks, those are returned whole — a short price list is worth reading even if it shares no word.
 */
export async function retrieveContextChunks(
  db: TDb | TTx,
  input: { userId: string; trackerId: string; query: string; limit: number },
): Promise<TContextChunk[]> {
  const limit = Math.max(1, Math.min(50, Math.floor(input.limit)));
  const scope = Prisma.sql`c."userId" = ${input.userId} AND c."trackerId" = ${input.trackerId}`;
  const matched = await db.$queryRaw<TContextChunk[]>`
    WITH q AS (
      SELECT replace(plainto_tsquery('english', ${input.query.slice(0, MAX_QUERY_CHARS)})::text, '&', '|')::tsquery AS query
    )
    SELECT c."id", c."fileId", f."name" AS "fileName", c."location", c."page", c."text"
    FROM "ContextChunk" c JOIN "ContextFile" f ON f."id" = c."fileId" AND f."userId" = c."userId", q
    WHERE ${scope} AND c."searchVector" @@ q.query
    ORDER BY ts_rank_cd(c."searchVector", q.query) DESC, f."createdAt" DESC, c."ordinal"
    LIMIT ${limit}`;
  if (matched.length > 0) return matched;
  return db.$queryRaw<TContextChunk[]>`
    SELECT c."id", c."fileId", f."name" AS "fileName", c."location", c."page", c."text"
    FROM "ContextChunk" c JOIN "ContextFile" f ON f."id" = c."fileId" AND f."userId" = c."userId"
    WHERE ${scope} AND (SELECT count(*) FROM "ContextChunk" c WHERE ${scope}) <= ${limit}
    ORDER BY f."createdAt" DESC, c."ordinal"`;
}
