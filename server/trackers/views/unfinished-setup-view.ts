import { z } from "zod";

/**
 * One unfinished setup as the trackers list and /trackers/new show it (docs/trackers.md, "Unfinished setups"): a new
 * tracker not locked yet, or an open edit of a live tracker (the draft of its next version). The one list both pages
 * read (listUnfinishedSetups).
 */
export const ZUnfinishedSetupSchema = z.object({
  /** Stable across reads: the conversation's id, or the draft tracker's when it has none. */
  key: z.string(),
  /** "new": a tracker being set up; "edit": the next version of a live tracker. */
  kind: z.enum(["new", "edit"]),
  /** The conversation Resume opens; null for a draft made without one (it can only be discarded). */
  sessionId: z.string().nullable(),
  trackerId: z.string().nullable(),
  /** The decision: the tracker's, or before a page was bound the person's first message made a title. */
  decision: z.string(),
  /** Distinct in the list: "Editing v2 of …" for an edit, the address's host added when decisions are equal. */
  title: z.string(),
  /** The bound page or place in words; null = no address yet. */
  address: z.string().nullable(),
  /** An edit: the version it becomes when locked (the version in force + 1). */
  editingVersion: z.number().int().nullable(),
  /** The last message, card edit or change of the draft. */
  lastActivityAt: z.date(),
  /** When it is discarded automatically unless touched again; null for an edit (a live tracker is never discarded). */
  discardAfter: z.date().nullable(),
});
export type TUnfinishedSetup = z.infer<typeof ZUnfinishedSetupSchema>;

export const ZUnfinishedSetupsViewSchema = z.object({
  setups: z.array(ZUnfinishedSetupSchema),
  /** The instant the list was read: relative times ("3 h ago") are computed from it on server and client alike. */
  asOf: z.date(),
});
export type TUnfinishedSetupsView = z.infer<typeof ZUnfinishedSetupsViewSchema>;
