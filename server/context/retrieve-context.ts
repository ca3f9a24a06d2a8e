import { embed } from "ai";
import { getEmbeddingModel, type TEmbeddingModel } from "../ai";
import type { TDb, TTx } from "../db";
import { describeError } from "../errors";
import { Prisma } from "../generated/prisma/client";
import { logger } from "../logger";
import { recordModelUsage } from "../usage";
import { embeddingModelId } from "./embed-context-file";
import { toVectorLiteral, unitVector } from "./vectors";

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
/** Reciprocal-rank fusion's constant (the usual 60): a chunk first in one list and absent from the other still wins. */
export const RRF_K = 60;
/**
 * Below this cosine similarity a chunk is not a vector hit: every chunk has SOME nearest neighbour, and a
 * price list should not be cited for an unrelated change just because it is the least far.
 */
export const MIN_VECTOR_SIMILARITY = 0.3;
/** The judge waits for the query's embedding; past this it goes on with full text alone. */
export const EMBED_QUERY_TIMEOUT_MS = 15_000;

type TRetrieveInput = {
  userId: string;
  trackerId: string;
  query: string;
  limit: number;
  /** The embedding model (default: the configured one; null: full text only). */
  embeddingModel?: TEmbeddingModel | null;
};

const CHUNK_COLUMNS = Prisma.sql`c."id", c."fileId", f."name" AS "fileName", c."location", c."page", c."text"`;
const CHUNK_FROM = Prisma.sql`"ContextChunk" c JOIN "ContextFile" f ON f."id" = c."fileId" AND f."userId" = c."userId"`;

/**
 * The most relevant chunks of ONE tracker's files for a query (the judge's TContextRetriever). Hybrid when an
 * embedding model is configured and the tracker's files carry its vectors (docs/design.md §3): PostgreSQL full-text rank
 * (the generated tsvector + GIN index, ts_rank_cd) and cosine similarity of the query's embedding, fused by
 * reciprocal rank; otherwise — rules mode, no embedding model, a file whose embedding failed, or the query's
 * embedding failing now — full text alone. Both queries are scoped by owner AND tracker in the WHERE clause: another
 * tracker's or another person's files are never read. The query's words are OR-ed (a change description is long;
 * any shared word counts and the rank orders them). When nothing matches but all of the tracker's files fit in
 * `limit` chunks, those are returned whole — a short price list is worth reading even if it shares no word.
 */
export async function retrieveContextChunks(db: TDb | TTx, input: TRetrieveInput): Promise<TContextChunk[]> {
  const limit = Math.max(1, Math.min(50, Math.floor(input.limit)));
  const depth = Math.min(50, limit * 4);
  const scope = Prisma.sql`c."userId" = ${input.userId} AND c."trackerId" = ${input.trackerId}`;
  const [byText, byVector] = await Promise.all([
    db.$queryRaw<TContextChunk[]>`
      WITH q AS (
        SELECT replace(plainto_tsquery('english', ${input.query.slice(0, MAX_QUERY_CHARS)})::text, '&', '|')::tsquery AS query
      )
      SELECT ${CHUNK_COLUMNS}
      FROM ${CHUNK_FROM}, q
      WHERE ${scope} AND c."searchVector" @@ q.query
      ORDER BY ts_rank_cd(c."searchVector", q.query) DESC, f."createdAt" DESC, c."ordinal"
      LIMIT ${depth}`,
    nearestChunks(db, input, scope, depth),
  ]);
  const fused = fuseByRank([byText, byVector]).slice(0, limit);
  if (fused.length > 0) return fused;
  return db.$queryRaw<TContextChunk[]>`
    SELECT ${CHUNK_COLUMNS}
    FROM ${CHUNK_FROM}
    WHERE ${scope} AND (SELECT count(*) FROM "ContextChunk" c WHERE ${scope}) <= ${limit}
    ORDER BY f."createdAt" DESC, c."ordinal"`;
}

/**
 * The tracker's chunks nearest to the query's embedding, by an exact scan (a dot product of unit vectors over
 * `double precision[]`): the scope is one tracker's few files, so no approximate index is needed, and the same SQL
 * runs on PGlite and on PostgreSQL without pgvector. Only chunks embedded by this very model are compared; the
 * query is embedded only when there are such chunks. A failing embedding call means full text alone.
 */
async function nearestChunks(
  db: TDb | TTx,
  input: TRetrieveInput,
  scope: Prisma.Sql,
  depth: number,
): Promise<TContextChunk[]> {
  const model = input.embeddingModel === undefined ? getEmbeddingModel() : input.embeddingModel;
  if (!model || !input.query.trim()) return [];
  const modelId = embeddingModelId(model);
  const ready = Prisma.sql`f."embeddingStatus" = 'ready' AND f."embeddingModel" = ${modelId} AND c."embedding" IS NOT NULL`;
  const [{ embedded }] = await db.$queryRaw<[{ embedded: number }]>`
    SELECT count(*)::int AS "embedded" FROM ${CHUNK_FROM} WHERE ${scope} AND ${ready}`;
  if (embedded === 0) return [];

  let vector: number[];
  try {
    const result = await embed({
      model,
      value: input.query.slice(0, MAX_QUERY_CHARS),
      maxRetries: 1,
      abortSignal: AbortSignal.timeout(EMBED_QUERY_TIMEOUT_MS),
    });
    vector = unitVector(result.embedding);
    await recordModelUsage(db, {
      userId: input.userId,
      trackerId: input.trackerId,
      kind: "embedding",
      spend: { modelCalls: 1, inputTokens: result.usage.tokens ?? 0, outputTokens: 0 },
    }).catch((error: unknown) => logger.warn("recording embedding usage failed", { error: describeError(error) }));
  } catch (error) {
    logger.warn("query embedding failed; full-text retrieval only", {
      trackerId: input.trackerId,
      error: describeError(error),
    });
    return [];
  }
  const q = toVectorLiteral(vector);
  return db.$queryRaw<TContextChunk[]>`
    SELECT * FROM (
      SELECT ${CHUNK_COLUMNS}, f."createdAt", c."ordinal",
        (SELECT sum(a * b) FROM unnest(c."embedding", ${q}::double precision[]) AS t(a, b)) AS "similarity"
      FROM ${CHUNK_FROM}
      WHERE ${scope} AND ${ready} AND cardinality(c."embedding") = ${vector.length}
    ) AS scored
    WHERE scored."similarity" >= ${MIN_VECTOR_SIMILARITY}
    ORDER BY scored."similarity" DESC, scored."createdAt" DESC, scored."ordinal"
    LIMIT ${depth}`.then((rows) =>
    rows.map(({ id, fileId, fileName, location, page, text }) => ({ id, fileId, fileName, location, page, text })),
  );
}

/** Reciprocal-rank fusion: each list adds 1 / (RRF_K + rank) to a chunk; ties keep the first list's order. */
export function fuseByRank(lists: readonly (readonly TContextChunk[])[]): TContextChunk[] {
  const scores = new Map<string, { chunk: TContextChunk; score: number; first: number }>();
  let seen = 0;
  for (const list of lists) {
    list.forEach((chunk, rank) => {
      const entry = scores.get(chunk.id) ?? { chunk, score: 0, first: seen++ };
      entry.score += 1 / (RRF_K + rank + 1);
      scores.set(chunk.id, entry);
    });
  }
  return [...scores.values()].sort((a, b) => b.score - a.score || a.first - b.first).map((e) => e.chunk);
}
