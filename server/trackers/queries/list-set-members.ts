import { z } from "zod";
import { fieldLabel, formatFieldValue, type TValueFormat } from "@/contracts/definition/format-value";
import {
  SET_MEMBER_NEW_MS,
  SET_MEMBER_SORTS,
  SET_MEMBERS_DEFAULT_LIMIT,
  SET_MEMBERS_MAX_LIMIT,
  type TSetMemberSort,
  type TSetMemberStatus,
  type TSetMembersResponse,
  type TSetMemberView,
} from "@/contracts/set-members";
import type { TFieldValueView } from "@/contracts/trackers";
import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";
import { Prisma } from "../../generated/prisma/client";
import { NOTABLE_SIGNALS } from "../../intelligence/definition";
import { getLockedDefinition, getTracker } from "../../intelligence/tracker-store";
import { MEMBER_KEY_PREFIX } from "../../timeline";

export type TListSetMembersInput = {
  userId: string;
  trackerId: string;
  search?: string | null | undefined;
  sort: TSetMemberSort;
  status: TSetMemberStatus;
  cursor?: string | null | undefined;
  limit?: number | undefined;
  /** The instant "new" is counted from (tests pin it). */
  now?: Date;
};

/** The fields whose value names a member (docs/sets.md: feeds have a title, listings and places a name). */
const NAME_FIELDS = ["title", "name"] as const;

/**
 * The members of the person's set tracker (docs/sets.md), a page at a time: owner-checked first (another person's
 * tracker is NOT_FOUND, docs/architecture.md "Arrows"), then one statement for the page and one for the counts,
 * whatever the set's size. Keyset paging (not offset), like the timeline, so a member a refresh adds between two
 * pages neither repeats nor hides one.
 */
export async function listSetMembers(db: TDb | TTx, input: TListSetMembersInput): Promise<TSetMembersResponse> {
  const asOf = input.now ?? new Date();
  const tracker = await getTracker(db, input);
  const locked = await getLockedDefinition(db, tracker.id);
  const empty = { all: 0, listed: 0, missing: 0, gone: 0 };
  if (!locked?.definition.set) {
    return { watchesSet: false, members: [], total: 0, counts: empty, nextCursor: null, asOf };
  }
  const limit = Math.min(Math.max(Math.trunc(input.limit ?? SET_MEMBERS_DEFAULT_LIMIT), 1), SET_MEMBERS_MAX_LIMIT);
  const after = input.cursor ? decodeCursor(input.cursor, input.sort) : null;
  const search = input.search?.trim() ? searchSql(input.search.trim()) : Prisma.sql`TRUE`;

  const rows = z.array(ZRowSchema).parse(
    await db.$queryRaw<unknown[]>`
      WITH m AS (${membersSql(tracker.id, { lastChange: true })})
      SELECT * FROM m
      WHERE ${search} AND ${STATUS_WHERE[input.status]} AND ${after ? afterSql(input.sort, after) : Prisma.sql`TRUE`}
      ORDER BY ${ORDER_BY[input.sort]}
      LIMIT ${limit + 1}`,
  );
  const [totals] = z.array(ZCountsRowSchema).parse(
    await db.$queryRaw<unknown[]>`
      WITH m AS (${membersSql(tracker.id, { lastChange: false })})
      SELECT count(*) FILTER (WHERE ${search}) AS "all",
        count(*) FILTER (WHERE ${search} AND ${STATUS_WHERE.listed}) AS "listed",
        count(*) FILTER (WHERE ${search} AND ${STATUS_WHERE.missing}) AS "missing",
        count(*) FILTER (WHERE ${search} AND ${STATUS_WHERE.gone}) AS "gone",
        min("firstSeenAt") AS "firstListedAt"
      FROM m`,
  );
  const counts = totals
    ? { all: totals.all, listed: totals.listed, missing: totals.missing, gone: totals.gone }
    : empty;

  const formats = new Map<string, TValueFormat>(locked.definition.fields.map((f) => [f.name, f]));
  const page = rows.slice(0, limit);
  const last = rows.length > limit ? page.at(-1) : undefined;
  return {
    watchesSet: true,
    members: page.map((row) => toMemberView(row, formats, totals?.firstListedAt ?? null, asOf)),
    total: counts[input.status],
    counts,
    nextCursor: last ? encodeCursor(input.sort, last) : null,
    asOf,
  };
}

// ── the statement's parts ──────────────────────────────────────────────────────────────────────────────────────

/** A JSON field's text when it is a non-blank string (a number or an object never names a member). */
const textField = (name: string) =>
  Prisma.sql`CASE WHEN jsonb_typeof(s."fields" -> ${name}) = 'string' THEN NULLIF(btrim(s."fields" ->> ${name}), '') END`;

/**
 * Every member of the tracker with its state, name and latest own entry (members' entries are MemberChange rows, the
 * tracker's own are EntityChange: docs/sets.md; a lateral read on the index entityId, capturedAt, id). Members are
 * the tracker's `item:` entities (server/timeline/set-members.ts).
 */
function membersSql(trackerId: string, opts: { lastChange: boolean }): Prisma.Sql {
  const name = Prisma.sql`COALESCE(${Prisma.join(NAME_FIELDS.map(textField), ", ")}, substr(te."entityKey", ${MEMBER_KEY_PREFIX.length + 1}))`;
  // The counts need no change dates: they skip the lateral read.
  const lastChange = opts.lastChange
    ? Prisma.sql`LEFT JOIN LATERAL (
        SELECT c."capturedAt" FROM "MemberChange" c WHERE c."entityId" = te."id"
        ORDER BY c."capturedAt" DESC, c."id" DESC LIMIT 1
      ) lc ON TRUE`
    : Prisma.sql`LEFT JOIN (SELECT NULL::timestamp AS "capturedAt") lc ON TRUE`;
  return Prisma.sql`
    SELECT substr(te."entityKey", ${MEMBER_KEY_PREFIX.length + 1}) AS "key", te."firstSeenAt", te."goneAt",
      s."fields", COALESCE(s."missingRuns", 0) AS "missingRuns", ${name} AS "name", lower(${name}) AS "sortName",
      lc."capturedAt" AS "lastChangeAt"
    FROM "TrackedEntity" te
    LEFT JOIN "EntityCurrentState" s ON s."entityId" = te."id"
    ${lastChange}
    WHERE te."trackerId" = ${trackerId} AND starts_with(te."entityKey", ${MEMBER_KEY_PREFIX})`;
}

/** The statuses of docs/sets.md: listed, missing (absent but not yet gone), gone (after `missingAfter` reads). */
const STATUS_WHERE: Record<TSetMemberStatus, Prisma.Sql> = {
  all: Prisma.sql`TRUE`,
  listed: Prisma.sql`("goneAt" IS NULL AND "missingRuns" = 0)`,
  missing: Prisma.sql`("goneAt" IS NULL AND "missingRuns" > 0)`,
  gone: Prisma.sql`("goneAt" IS NOT NULL)`,
};

/** Name, key or any field's text contains the words; LIKE's own characters are escaped (backslash, its default). */
function searchSql(text: string): Prisma.Sql {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return Prisma.sql`("name" ILIKE ${pattern} OR "key" ILIKE ${pattern} OR EXISTS (
    SELECT 1 FROM jsonb_each_text(CASE WHEN jsonb_typeof("fields") = 'object' THEN "fields" ELSE '{}'::jsonb END) f
    WHERE f."key" <> ${NOTABLE_SIGNALS} AND f."value" ILIKE ${pattern}))`;
}

/** Each sort ends on the key (unique within a tracker), so the order is total and a cursor names one place. */
const ORDER_BY: Record<TSetMemberSort, Prisma.Sql> = {
  name: Prisma.sql`"sortName" ASC, "key" ASC`,
  first_seen: Prisma.sql`"firstSeenAt" DESC, "key" ASC`,
  last_change: Prisma.sql`"lastChangeAt" DESC NULLS LAST, "key" ASC`,
};

type TCursor = { value: string | null; key: string };

/** The rows strictly after the cursor in ORDER_BY[sort]. Timestamps are TIMESTAMP(3) in UTC: an ISO string is exact. */
function afterSql(sort: TSetMemberSort, at: TCursor): Prisma.Sql {
  switch (sort) {
    case "name":
      return Prisma.sql`("sortName" > ${at.value ?? ""} OR ("sortName" = ${at.value ?? ""} AND "key" > ${at.key}))`;
    case "first_seen":
      return Prisma.sql`("firstSeenAt" < ${at.value}::timestamp OR ("firstSeenAt" = ${at.value}::timestamp AND "key" > ${at.key}))`;
    case "last_change":
      // Never-changed members come last, by key.
      return at.value === null
        ? Prisma.sql`("lastChangeAt" IS NULL AND "key" > ${at.key})`
        : Prisma.sql`("lastChangeAt" IS NULL OR "lastChangeAt" < ${at.value}::timestamp
            OR ("lastChangeAt" = ${at.value}::timestamp AND "key" > ${at.key}))`;
  }
}

// ── rows, views and cursors ────────────────────────────────────────────────────────────────────────────────────

const ZRowSchema = z.object({
  key: z.string(),
  name: z.string(),
  sortName: z.string(),
  firstSeenAt: z.coerce.date(),
  goneAt: z.coerce.date().nullable(),
  fields: z.record(z.string(), z.unknown()).nullable().catch(null),
  missingRuns: z.coerce.number().int(),
  lastChangeAt: z.coerce.date().nullable(),
});
type TRow = z.infer<typeof ZRowSchema>;

const ZCountsRowSchema = z.object({
  all: z.coerce.number().int(),
  listed: z.coerce.number().int(),
  missing: z.coerce.number().int(),
  gone: z.coerce.number().int(),
  firstListedAt: z.coerce.date().nullable(),
});

function toMemberView(
  row: TRow,
  formats: Map<string, TValueFormat>,
  firstListedAt: Date | null,
  asOf: Date,
): TSetMemberView {
  const seen = row.firstSeenAt.getTime();
  return {
    key: row.key,
    name: row.name,
    fields: fieldViews(row.fields ?? {}, formats),
    firstSeenAt: row.firstSeenAt,
    goneAt: row.goneAt,
    missingRuns: row.missingRuns,
    lastChangeAt: row.lastChangeAt,
    // The baseline lists every member at once: those are the set, not news (docs/sets.md, "appeared").
    isNew: firstListedAt !== null && seen > firstListedAt.getTime() && asOf.getTime() - seen < SET_MEMBER_NEW_MS,
  };
}

/** The member's fields in definition order (fields the definition no longer has last), formatted for people. */
function fieldViews(fields: Record<string, unknown>, formats: Map<string, TValueFormat>): TFieldValueView[] {
  const names = [...formats.keys(), ...Object.keys(fields).filter((n) => !formats.has(n))].filter(
    (n) => n !== NOTABLE_SIGNALS && n in fields,
  );
  return names.map((name) => ({
    name,
    label: fieldLabel(name),
    text: formatFieldValue(fields[name], formats.get(name)),
  }));
}

const ZCursorSchema = z.object({
  s: z.enum(SET_MEMBER_SORTS),
  v: z.string().max(2500).nullable(),
  k: z.string().max(2500),
});

function encodeCursor(sort: TSetMemberSort, row: TRow): string {
  const value =
    sort === "name"
      ? row.sortName
      : sort === "first_seen"
        ? row.firstSeenAt.toISOString()
        : (row.lastChangeAt?.toISOString() ?? null);
  return Buffer.from(JSON.stringify({ s: sort, v: value, k: row.key }), "utf8").toString("base64url");
}

/** Anything encodeCursor did not make for this sort is a BAD_REQUEST, never a query. */
function decodeCursor(cursor: string, sort: TSetMemberSort): TCursor {
  const invalid = () =>
    new AppError("BAD_REQUEST", "That members cursor is not valid; reload the list from the start.");
  let parsed: z.infer<typeof ZCursorSchema>;
  try {
    parsed = ZCursorSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch {
    throw invalid();
  }
  if (parsed.s !== sort) throw invalid();
  if (sort !== "name" && parsed.v !== null && !ISO_UTC.test(parsed.v)) throw invalid();
  if (sort === "first_seen" && parsed.v === null) throw invalid();
  return { value: parsed.v, key: parsed.k };
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
