import { z } from "zod";
import type { TTrackerListFilter } from "@/contracts/trackers";
import { AppError } from "../../errors";
import type { Prisma } from "../../generated/prisma/client";
import { FAILING_WHERE, NEEDS_ATTENTION_WHERE } from "../../intelligence/tracker-store";

/**
 * The predicates every paged list of trackers is built from (docs/trackers.md, "Paging, search and filters"): one
 * order — newest first, createdAt then id, which the (userId, createdAt) index reads in order — and a keyset cursor
 * on it, so a page costs the same at the 10,000th tracker as at the first and a tracker created meanwhile does not
 * shift the pages already read.
 */

export const TRACKER_LIST_ORDER = [
  { createdAt: "desc" },
  { id: "desc" },
] as const satisfies Prisma.TrackerOrderByWithRelationInput[];

/** A tracker that was never locked is an unfinished setup, listed apart (docs/trackers.md, "Unfinished setups"). */
export const NOT_PURE_DRAFT_WHERE = {
  NOT: { status: "draft", lockedVersion: null },
} as const satisfies Prisma.TrackerWhereInput;

/** The "Show" choice as a predicate: the same definitions of failing and needs attention as the tracker page's. */
export function trackerFilterWhere(show: TTrackerListFilter): Prisma.TrackerWhereInput {
  switch (show) {
    case "current":
      return { status: { not: "archived" } };
    case "failing":
      return FAILING_WHERE;
    case "needs_attention":
      return NEEDS_ATTENTION_WHERE;
    case "all":
      return {};
    default:
      return { status: show };
  }
}

/**
 * Words in the decision or in the target the row shows (describeTarget: a page's or a PDF's address, a place id, a
 * Maps search), case-insensitive, the whole text one phrase.
 */
export function trackerSearchWhere(q: string | undefined): Prisma.TrackerWhereInput {
  const text = q?.trim();
  if (!text) return {};
  // Prisma passes LIKE's wildcards through in `contains` and `string_contains`: escaped here, so they are characters.
  const literal = text.replace(/[\\%_]/g, (c) => `\\${c}`);
  const inInput = (key: string): Prisma.TrackerWhereInput => ({
    capabilityInput: { path: [key], string_contains: literal, mode: "insensitive" },
  });
  return {
    OR: [
      { decision: { contains: literal, mode: "insensitive" } },
      inInput("url"),
      inInput("placeId"),
      inInput("query"),
    ],
  };
}

const ZCursorSchema = z.object({
  c: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
  i: z.string().max(64),
});

export function encodeTrackerCursor(row: { createdAt: Date; id: string }): string {
  return Buffer.from(JSON.stringify({ c: row.createdAt.toISOString(), i: row.id }), "utf8").toString("base64url");
}

/** The rows after the cursor in TRACKER_LIST_ORDER; a cursor this module did not make is a BAD_REQUEST, never a query. */
export function afterTrackerCursorWhere(cursor: string | null | undefined): Prisma.TrackerWhereInput {
  if (!cursor) return {};
  let parsed: z.infer<typeof ZCursorSchema>;
  try {
    parsed = ZCursorSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch {
    throw new AppError("BAD_REQUEST", "That trackers cursor is not valid; reload the list from the start.");
  }
  const createdAt = new Date(parsed.c);
  // `createdAt <= c` on its own lets PostgreSQL start the (userId, createdAt) index scan at the cursor (an OR alone
  // is only a filter: the scan would read every newer row again, EXPLAIN at 10,000 rows).
  return { createdAt: { lte: createdAt }, OR: [{ createdAt: { lt: createdAt } }, { id: { lt: parsed.i } }] };
}

/** Reads limit + 1 rows to know whether there is a next page; returns the page and its cursor. */
export function pageOf<T extends { createdAt: Date; id: string }>(
  rows: T[],
  limit: number,
): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, nextCursor: rows.length > limit && last ? encodeTrackerCursor(last) : null };
}
