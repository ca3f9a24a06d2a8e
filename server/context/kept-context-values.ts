import type { TContextValue } from "@/contracts/definition/context-rule-schema";
import type { TDb, TTx } from "../db";
import { guardedBy, type TCte } from "../db-cte";
import { Prisma } from "../generated/prisma/client";
import { resolveContextValues, type TResolvedContextValue } from "./resolve-context-values";

/**
 * A locked rule's bound value never vanishes silently (docs/context-files.md). Each tracker keeps, per binding, the
 * last value a file gave it (BoundContextValue, written only here): the refresh's final write keeps what it read, and
 * deleting a file keeps what the file stated and when it went. A binding that reads nothing now — its file deleted,
 * or replaced by one that no longer states it — decides with that kept value, marked, as long as the locked version
 * that read it is in force; a new version (the person edited the tracker) reads its files afresh.
 */

type TBound = Record<string, TResolvedContextValue | null>;
type TOwner = { userId: string; trackerId: string };

/** The definition's bound values as the files state them now; one that reads nothing falls back to its kept value. */
export async function resolveBoundValues(
  db: TDb | TTx,
  input: TOwner & { version: number; values: readonly TContextValue[] },
): Promise<TBound> {
  const live = await resolveContextValues(db, input);
  const missing = Object.keys(live).filter((name) => live[name] === null);
  // Only a binding that read nothing costs a read more; a refresh whose files are all there reads as before.
  if (missing.length === 0) return live;
  return { ...live, ...(await readKept(db, { ...input, names: missing })) };
}

/**
 * The kept values the locked `version` decides with right now (its files no longer give them), for the tracker page's
 * marker: one read when nothing was kept, and the files are read only when something was.
 */
export async function keptValuesInUse(
  db: TDb | TTx,
  input: TOwner & { version: number; values: readonly TContextValue[] },
): Promise<Record<string, TResolvedContextValue>> {
  if (input.values.length === 0) return {};
  const kept = await readKept(db, { ...input, names: input.values.map((v) => v.name) });
  const values = input.values.filter((v) => kept[v.name]);
  if (values.length === 0) return {};
  const live = await resolveContextValues(db, { ...input, values });
  const out: Record<string, TResolvedContextValue> = {};
  for (const v of values) {
    const value = kept[v.name];
    if (value && live[v.name] === null) out[v.name] = value;
  }
  return out;
}

/**
 * The refresh's part of its one final write (guarded on its fence): the values it read from the files, kept for its
 * version. A row is rewritten only when something about it changed; no part when nothing was read from a file.
 */
export function keepBoundValuesSql(
  input: TOwner & { version: number; bound: TBound; at: Date; guard: string | null },
): TCte[] {
  const rows = Object.entries(input.bound).flatMap(([name, v]) => (v && !v.kept ? [{ name, ...v }] : []));
  if (rows.length === 0) return [];
  return [{ name: "kept_values", sql: upsertSql({ ...input, rows, removedAt: null }) }];
}

/**
 * Deleting a file (delete-context-file.ts, in its transaction): the values `bound` read from it are kept with the
 * time it went, and every value kept from it earlier is marked as gone too.
 */
export async function keepValuesOfRemovedFile(
  tx: TTx,
  input: TOwner & { fileId: string; version: number | null; bound: TBound; at: Date },
): Promise<void> {
  const rows = Object.entries(input.bound).flatMap(([name, v]) =>
    v && !v.kept && v.fileId === input.fileId ? [{ name, ...v }] : [],
  );
  if (rows.length > 0 && input.version !== null) {
    await tx.$executeRaw(upsertSql({ ...input, version: input.version, rows, removedAt: input.at, guard: null }));
  }
  await tx.boundContextValue.updateMany({
    where: { userId: input.userId, trackerId: input.trackerId, fileId: input.fileId, removedAt: null },
    data: { removedAt: input.at },
  });
}

/**
 * Replacing a file (save-context-file.ts, in its transaction, before the new text is written): the values `bound`
 * read from the old text are kept, so a replacement that no longer states one leaves the rules deciding with it.
 */
export async function keepValuesBeforeReplace(
  tx: TTx,
  input: TOwner & { fileId: string; version: number; bound: TBound; at: Date },
): Promise<void> {
  const rows = Object.entries(input.bound).flatMap(([name, v]) =>
    v && !v.kept && v.fileId === input.fileId ? [{ name, ...v }] : [],
  );
  if (rows.length > 0) await tx.$executeRaw(upsertSql({ ...input, rows, removedAt: null, guard: null }));
}

function upsertSql(
  input: TOwner & {
    version: number;
    rows: (TResolvedContextValue & { name: string })[];
    removedAt: Date | null;
    at: Date;
    guard: string | null;
  },
): Prisma.Sql {
  const values = input.rows.map(
    (r) => Prisma.sql`(${r.name}::text, ${r.value}::double precision, ${r.fileId}::text, ${r.fileName}::text,
      ${r.location}::text, ${r.quote}::text)`,
  );
  // The same file again keeps its removal time (ids are never reused: a file that went stays gone); another
  // file — the person attached a new one — clears it.
  return Prisma.sql`INSERT INTO "BoundContextValue"
      ("trackerId", "userId", "name", "definitionVersion", "value", "fileId", "fileName", "location", "quote",
       "removedAt", "updatedAt")
    SELECT ${input.trackerId}, ${input.userId}, x."name", ${input.version}::int, x."value", x."fileId", x."fileName",
      x."location", x."quote", ${input.removedAt}::timestamp(3), ${input.at}::timestamp(3)
    FROM (VALUES ${Prisma.join(values)}) AS x("name", "value", "fileId", "fileName", "location", "quote")
    WHERE ${guardedBy(input.guard)}
    ON CONFLICT ("trackerId", "name") DO UPDATE SET "definitionVersion" = EXCLUDED."definitionVersion",
      "value" = EXCLUDED."value", "fileId" = EXCLUDED."fileId", "fileName" = EXCLUDED."fileName",
      "location" = EXCLUDED."location", "quote" = EXCLUDED."quote",
      "removedAt" = CASE WHEN "BoundContextValue"."fileId" = EXCLUDED."fileId"
        THEN coalesce(EXCLUDED."removedAt", "BoundContextValue"."removedAt") ELSE EXCLUDED."removedAt" END,
      "updatedAt" = EXCLUDED."updatedAt"
    WHERE ("BoundContextValue"."definitionVersion", "BoundContextValue"."value", "BoundContextValue"."fileId",
        "BoundContextValue"."fileName", "BoundContextValue"."location", "BoundContextValue"."quote",
        "BoundContextValue"."removedAt")
      IS DISTINCT FROM (EXCLUDED."definitionVersion", EXCLUDED."value", EXCLUDED."fileId", EXCLUDED."fileName",
        EXCLUDED."location", EXCLUDED."quote", coalesce(EXCLUDED."removedAt", "BoundContextValue"."removedAt"))`;
}

/**
 * The person's kept values of `names` for `version`, each marked: its file is still attached (then it was replaced by
 * one that no longer states it, at the file's last update) or not (removed, when the deletion was recorded).
 */
async function readKept(
  db: TDb | TTx,
  input: TOwner & { version: number; names: string[] },
): Promise<Record<string, TResolvedContextValue>> {
  const rows = await db.$queryRaw<
    {
      name: string;
      value: number;
      fileId: string;
      fileName: string;
      location: string;
      quote: string;
      removedAt: Date | null;
      replacedAt: Date | null;
    }[]
  >`
    SELECT k."name", k."value", k."fileId", k."fileName", k."location", k."quote", k."removedAt",
      f."updatedAt" AS "replacedAt"
    FROM "BoundContextValue" k
    LEFT JOIN "ContextFile" f ON f."id" = k."fileId" AND f."userId" = k."userId" AND f."trackerId" = k."trackerId"
    WHERE k."userId" = ${input.userId} AND k."trackerId" = ${input.trackerId}
      AND k."definitionVersion" = ${input.version} AND k."name" IN (${Prisma.join(input.names)})`;
  return Object.fromEntries(
    rows.map((r) => [
      r.name,
      {
        value: r.value,
        fileId: r.fileId,
        fileName: r.fileName,
        location: r.location,
        quote: r.quote,
        kept: r.replacedAt
          ? { reason: "replaced", since: r.replacedAt.toISOString() }
          : { reason: "removed", since: r.removedAt?.toISOString() ?? null },
      } satisfies TResolvedContextValue,
    ]),
  );
}
