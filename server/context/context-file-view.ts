import { type TContextFileUse, type TContextFileView, ZContextFileViewSchema } from "@/contracts/context-files";
import type { TDb, TTx } from "../db";
import { Prisma } from "../generated/prisma/client";

export const CONTEXT_FILE_VIEW_SELECT = {
  id: true,
  trackerId: true,
  name: true,
  kind: true,
  size: true,
  status: true,
  embeddingStatus: true,
  embeddingError: true,
  units: true,
  chunkCount: true,
  createdAt: true,
  updatedAt: true,
} as const;

type TFileRow = Prisma.ContextFileGetPayload<{ select: typeof CONTEXT_FILE_VIEW_SELECT }>;

/**
 * Per file of the person's tracker: how many timeline changes cited it and when last (the change rows keep
 * `citations` as JSON; containment matches the file id with `cited: true`). Same SQL on PGlite and PostgreSQL.
 */
export async function citationCounts(
  db: TDb | TTx,
  input: { userId: string; trackerId: string; fileIds?: string[] },
): Promise<Map<string, { citedBy: number; lastCitedAt: Date | null }>> {
  if (input.fileIds?.length === 0) return new Map();
  const only = input.fileIds ? Prisma.sql`AND f."id" IN (${Prisma.join(input.fileIds)})` : Prisma.empty;
  const rows = await db.$queryRaw<{ id: string; citedBy: number; lastCitedAt: Date | null }[]>`
    SELECT f."id", count(c."id")::int AS "citedBy", max(c."capturedAt") AS "lastCitedAt"
    FROM "ContextFile" f
    LEFT JOIN "EntityChange" c ON c."trackerId" = f."trackerId"
      AND c."citations" @> jsonb_build_array(jsonb_build_object('fileId', f."id", 'cited', true))
    WHERE f."userId" = ${input.userId} AND f."trackerId" = ${input.trackerId} ${only}
    GROUP BY f."id"`;
  return new Map(rows.map((r) => [r.id, { citedBy: r.citedBy, lastCitedAt: r.lastCitedAt }]));
}

/**
 * A stored row → the list's view, parsed (kind and status are plain text columns); `usedBy`: what the locked rules
 * read from it (file-bindings.ts), none when not given.
 */
export function toContextFileView(
  row: TFileRow,
  cited: { citedBy: number; lastCitedAt: Date | null } = { citedBy: 0, lastCitedAt: null },
  usedBy: TContextFileUse[] = [],
): TContextFileView {
  return ZContextFileViewSchema.parse({ ...row, ...cited, usedBy });
}
