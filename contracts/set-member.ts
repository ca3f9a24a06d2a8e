import { z } from "zod";
import { zText } from "./common";
import { ZChangeMaterialitySchema, ZRecordValueSchema } from "./timeline";
import { ZFieldValueViewSchema, ZTrackerIdRequestSchema } from "./trackers";

/**
 * tracker.setMember and tracker.memberChanges (and GET /api/v1/trackers/{id}/members/{key}[/changes]): one member of
 * a set tracker and its own timeline, the MemberChange entries (docs/sets.md). Client-safe: the member page names its
 * page size and statuses from here.
 */

/** A member's key is its identity in the set (a product URL, a feed entry's id): roomy, still bounded. */
export const SET_MEMBER_KEY_MAX = 2500;
export const MEMBER_CHANGES_DEFAULT_LIMIT = 20;
export const MEMBER_CHANGES_MAX_LIMIT = 100;

/** listed: in the last read; missing: absent from the last N reads but not gone yet; gone: dropped from the set. */
export const SET_MEMBER_PRESENCES = ["listed", "missing", "gone"] as const;
export type TSetMemberPresence = (typeof SET_MEMBER_PRESENCES)[number];

export const ZSetMemberRequestSchema = ZTrackerIdRequestSchema.extend({
  key: zText({ min: 1, max: SET_MEMBER_KEY_MAX, label: "The member key" }).describe(
    "The member's key as the members list gives it. In a REST path it is one segment, percent-encoded " +
      "(encodeURIComponent), so the / ? % of a key that is a URL are sent encoded",
  ),
});
export type TSetMemberRequest = z.infer<typeof ZSetMemberRequestSchema>;

export const ZSetMemberDetailSchema = z.object({
  key: z.string().describe("The member's identity in the set (a feed entry's id, a product URL, a place id)"),
  name: z.string().describe("Its title or name field, else its key"),
  url: z
    .string()
    .nullable()
    .describe(
      "Its web address (http or https): the key when it is one, else its first field that is one; null if none",
    ),
  status: z
    .enum(SET_MEMBER_PRESENCES)
    .describe(
      "listed: in the last read; missing: absent lately but not gone yet; gone: dropped after missingAfter reads",
    ),
  missingRuns: z.number().int().describe("Reads in a row that did not list it; 0 while it is listed"),
  goneAt: z.date().nullable().describe("When it was dropped from the set; null while it is in it"),
  isNew: z.boolean().describe("First seen in the last 24 hours, after the set's first listing"),
  firstSeenAt: z.date(),
  lastChangeAt: z
    .date()
    .nullable()
    .describe("When its own latest entry was recorded (appeared, changed, gone); null if none since its first listing"),
  fields: z.array(ZFieldValueViewSchema).describe("Its current fields as people read them, in definition order"),
  values: z
    .record(z.string(), ZRecordValueSchema)
    .describe("Its current values as stored (money as {amount, currency}); empty before its first state"),
});
export type TSetMemberDetail = z.infer<typeof ZSetMemberDetailSchema>;

export const ZSetMemberResponseSchema = z.object({
  tracker: z.object({ id: z.string(), decision: z.string() }).describe("The set tracker the member belongs to"),
  member: ZSetMemberDetailSchema,
  asOf: z.date().describe("When this was read (what isNew is counted from)"),
});
export type TSetMemberResponse = z.infer<typeof ZSetMemberResponseSchema>;

export const MEMBER_CHANGE_KINDS = ["appeared", "back", "changed", "gone"] as const;
export type TMemberChangeKind = (typeof MEMBER_CHANGE_KINDS)[number];

export const ZMemberFieldChangeSchema = z.object({
  field: z.string(),
  label: z.string().describe("The field's name for people"),
  before: ZRecordValueSchema.describe("Its value before (null when the member appeared)"),
  after: ZRecordValueSchema.describe("Its value after"),
  text: z.string().describe('The change as people read it: "$39.50 → $35.00 (−11%)"; the value alone when it appeared'),
  verdict: z
    .enum(["material", "notable", "noise", "baseline"])
    .nullable()
    .describe("How the field's change was judged; null if no verdict was stored"),
  decidedBy: z.enum(["code", "agent"]).nullable(),
  reason: z.string().nullable().describe("Why, as stored with the verdict"),
});
export type TMemberFieldChange = z.infer<typeof ZMemberFieldChangeSchema>;

export const ZMemberChangeEntrySchema = z.object({
  id: z.string(),
  at: z.date().describe("When the refresh that recorded it read the set"),
  kind: z
    .enum(MEMBER_CHANGE_KINDS)
    .describe("appeared: first listed after the set's first read; back: listed again after it had gone; changed; gone"),
  materiality: ZChangeMaterialitySchema,
  fields: z.array(ZMemberFieldChangeSchema).describe("Each field's before and after, in definition order"),
  definitionVersion: z.number().int().describe("The definition version it was judged under"),
  runId: z.string(),
});
export type TMemberChangeEntry = z.infer<typeof ZMemberChangeEntrySchema>;

export const ZMemberChangesRequestSchema = ZSetMemberRequestSchema.extend({
  cursor: z.string().max(500).nullish().describe("nextCursor of the previous page"),
  limit: z.coerce.number().int().min(1).max(MEMBER_CHANGES_MAX_LIMIT).default(MEMBER_CHANGES_DEFAULT_LIMIT),
});
export type TMemberChangesRequest = z.infer<typeof ZMemberChangesRequestSchema>;

export const ZMemberChangesResponseSchema = z.object({
  trackerId: z.string(),
  key: z.string(),
  entries: z.array(ZMemberChangeEntrySchema).describe("The member's own entries, newest first"),
  nextCursor: z.string().nullable().describe("Pass as cursor for the next (older) page; null on the last"),
});
export type TMemberChangesResponse = z.infer<typeof ZMemberChangesResponseSchema>;
