import { embedMany } from "ai";
import type { TContextEmbeddingStatus } from "@/contracts/context-files";
import { getEmbeddingModel, type TEmbeddingModel } from "../ai";
import type { TDb } from "../db";
import { describeError } from "../errors";
import { Prisma } from "../generated/prisma/client";
import { logger } from "../logger";
import { recordModelUsage, spentModelBudget } from "../usage";
import { toVectorLiteral, unitVector } from "./vectors";

const MAX_ERROR_CHARS = 300;
/** The upload waits for its embedding; a model server that hangs must not hold it (the file is kept either way). */
export const EMBED_FILE_TIMEOUT_MS = 60_000;

/** The id a file's vectors are labelled with: vectors of another model (or provider) are never compared. */
export function embeddingModelId(model: TEmbeddingModel): string {
  return `${model.provider}:${model.modelId}`;
}

/**
 * Embeds one stored file's chunks (AI SDK embedMany through server/ai, metered in the usage ledger) and stores the
 * unit vectors beside them — AFTER the file's own transaction (docs/design.md §3): the upload is already stored and full-text
 * indexed, so a failing or slow embedding model only leaves the file `failed` (full text only, said on the card).
 * A file replaced meanwhile is left to its own, newer embedding (the write checks the file's `updatedAt`).
 * `model` defaults to the configured one; null → `off`.
 */
export async function embedContextFile(
  db: TDb,
  input: { userId: string; trackerId: string; fileId: string; model?: TEmbeddingModel | null },
): Promise<{ status: TContextEmbeddingStatus; error: string | null }> {
  const model = input.model === undefined ? getEmbeddingModel() : input.model;
  const owner = { userId: input.userId, trackerId: input.trackerId };
  const file = await db.contextFile.findFirst({
    where: { id: input.fileId, ...owner },
    select: { updatedAt: true, chunks: { select: { id: true, text: true }, orderBy: { ordinal: "asc" } } },
  });
  if (!file) return { status: "off", error: null };
  const mark = async (status: TContextEmbeddingStatus, error: string | null, modelId: string | null) => {
    await db.contextFile.updateMany({
      where: { id: input.fileId, ...owner, updatedAt: file.updatedAt },
      data: { embeddingStatus: status, embeddingError: error, embeddingModel: modelId, updatedAt: file.updatedAt },
    });
    return { status, error };
  };
  if (!model) return mark("off", null, null);
  if (file.chunks.length === 0) return mark("ready", null, embeddingModelId(model));

  const budget = await spentModelBudget(db, { userId: input.userId });
  if (budget) return mark("failed", "This month's model budget is spent; full-text search only.", null);

  let vectors: number[][];
  try {
    const result = await embedMany({
      model,
      values: file.chunks.map((c) => c.text),
      maxRetries: 1,
      abortSignal: AbortSignal.timeout(EMBED_FILE_TIMEOUT_MS),
    });
    await recordModelUsage(db, {
      ...owner,
      kind: "embedding",
      spend: { modelCalls: result.responses?.length || 1, inputTokens: result.usage.tokens ?? 0, outputTokens: 0 },
    });
    vectors = result.embeddings.map(unitVector);
  } catch (error) {
    logger.warn("context file embedding failed; full-text search only", {
      fileId: input.fileId,
      error: describeError(error),
    });
    const message = error instanceof Error ? error.message : String(error);
    return mark("failed", `Embedding failed: ${message}`.slice(0, MAX_ERROR_CHARS), null);
  }

  try {
    return await storeVectors(
      db,
      { ...input, updatedAt: file.updatedAt, modelId: embeddingModelId(model) },
      file.chunks,
      vectors,
    );
  } catch (error) {
    logger.warn("storing context file vectors failed; full-text search only", {
      fileId: input.fileId,
      error: describeError(error),
    });
    return mark("failed", "Embedding failed: the vectors could not be stored.", null).catch(() => ({
      status: "pending" as const,
      error: null,
    }));
  }
}

async function storeVectors(
  db: TDb,
  input: { userId: string; trackerId: string; fileId: string; updatedAt: Date; modelId: string },
  chunks: readonly { id: string }[],
  vectors: readonly number[][],
): Promise<{ status: TContextEmbeddingStatus; error: string | null }> {
  const owner = { userId: input.userId, trackerId: input.trackerId };
  const { modelId } = input;
  const file = { updatedAt: input.updatedAt };
  const rows = chunks.map((chunk, i) => Prisma.sql`(${chunk.id}, ${toVectorLiteral(vectors[i] ?? [])})`);
  const stored = await db.$transaction(async (tx) => {
    // Still the same upload (not replaced meanwhile)? `updatedAt` is kept as it was: embedding is not an edit.
    const { count } = await tx.contextFile.updateMany({
      where: { id: input.fileId, ...owner, updatedAt: file.updatedAt },
      data: { embeddingStatus: "ready", embeddingError: null, embeddingModel: modelId, updatedAt: file.updatedAt },
    });
    if (count === 0) return false;
    await tx.$executeRaw`
      UPDATE "ContextChunk" AS c SET "embedding" = v.e::double precision[]
      FROM (VALUES ${Prisma.join(rows)}) AS v(id, e)
      WHERE c."id" = v.id AND c."fileId" = ${input.fileId}
        AND c."userId" = ${input.userId} AND c."trackerId" = ${input.trackerId}`;
    return true;
  });
  return stored ? { status: "ready", error: null } : { status: "pending", error: null };
}
