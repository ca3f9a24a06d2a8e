import { z } from "zod";
import { zText } from "./common";
import { ZFieldValueViewSchema, ZTrackerIdRequestSchema } from "./trackers";

/**
 * tracker.setMembers: the members of a tracker that watches a set (docs/sets.md), a page at a time, for the tracker
 * page's member list. Client-safe (docs/architecture.md, "Rooms"): the page names its sorts and filters from here.
 */

export const SET_MEMBER_SORTS = ["name", "first_seen", "last_change"] as const;
export type TSetMemberSort = (typeof SET_MEMBER_SORTS)[number];

export const SET_MEMBER_STATUSES = ["all", "listed", "missing", "gone"] as const;
export type TSetMemberStatus = (typeof SET_MEMBER_STATUSES)[number];

export const SET_MEMBERS_DEFAULT_LIMIT = 50;
export const SET_MEMBERS_MAX_LIMIT = 200;
/** A cursor carries the last member's sort value and key (a long title, a long product URL): roomy, still bounded. */
export const SET_MEMBERS_CURSOR_MAX = 8000;
/** A member first seen this recently (and after the set's first listing) is "new". */
export const SET_MEMBER_NEW_MS = 24 * 60 * 60_000;

export const ZSetMembersRequestSchema = ZTrackerIdRequestSchema.extend({
  search: zText({ max: 200, label: "The search" })
    .trim()
    .optional()
    .describe("Words in the member's name, key or any field value (case-insensitive)"),
  sort: z
    .enum(SET_MEMBER_SORTS)
    .default("name")
    .describe("name: A–Z; first_seen: newest first; last_change: latest change first, never changed last"),
  status: z
    .enum(SET_MEMBER_STATUSES)
    .default("all")
    .describe(
      "listed: in the last read; missing: absent lately but not gone yet; gone: dropped after missingAfter reads",
    ),
  cursor: z.string().max(SET_MEMBERS_CURSOR_MAX).nullish().describe("nextCursor of the previous page (same sort)"),
  limit: z.coerce.number().int().min(1).max(SET_MEMBERS_MAX_LIMIT).default(SET_MEMBERS_DEFAULT_LIMIT),
});
export type TSetMembersRequest = z.infer<typeof ZSetMembersRequestSchema>;

export const ZSetMemberViewSchema = z.object({
  key: z.string().describe("The member's identity in the set (a feed entry's id, a product URL, a place id)"),
  name: z.string().describe("Its title or name field, else its key"),
  fields: z.array(ZFieldValueViewSchema).describe("Its current fields as people read them, in definition order"),
  firstSeenAt: z.date(),
  goneAt: z.date().nullable().describe("When it was dropped from the set; null while it is in it"),
  missingRuns: z.number().int().describe("Reads in a row that did not list it; 0 while it is listed"),
  lastChangeAt: z
    .date()
    .nullable()
    .describe("When its own latest entry was recorded (appeared, changed, gone); null if none"),
  isNew: z.boolean().describe("First seen in the last 24 hours, after the set's first listing"),
});
export type TSetMemberView = z.infer<typeof ZSetMemberViewSchema>;

export const ZSetMemberCountsSchema = z
  .object({
    all: z.number().int(),
    listed: z.number().int(),
    missing: z.number().int(),
    gone: z.number().int(),
  })
  .describe("Members per status, within the search");
export type TSetMemberCounts = z.infer<typeof ZSetMemberCountsSchema>;

export const ZSetMembersResponseSchema = z.object({
  watchesSet: z.boolean().describe("The locked definition has a set part; false → no members, ever"),
  members: z.array(ZSetMemberViewSchema),
  total: z.number().int().describe("Members matching the search and status, over all pages"),
  counts: ZSetMemberCountsSchema,
  nextCursor: z.string().nullable().describe("Pass as cursor for the next page; null on the last"),
  asOf: z.date().describe("When this was read (what isNew is counted from)"),
});
export type TSetMembersResponse = z.infer<typeof ZSetMembersResponseSchema>;
