import { z } from "zod";
import type { TFeedEntry } from "@/contracts/feed-entry";
import type { TSetMember } from "../../capabilities";
import { feedMember } from "../../capabilities/feed-items/read-back";

const ZMembersSchema = z.array(z.object({ key: z.string(), values: z.record(z.string(), z.unknown()) }));
const ZFeedEntriesSchema = z.array(z.looseObject({ key: z.string(), categories: z.array(z.string()) }));

/**
 * The members a set's capture holds, in the order its document keeps them (sorted by key — docs/sets.md), read as the
 * refresh read them from the capability: a listing's `listing` and a place search's `places` are the members
 * themselves; a feed's `entries` become members as its read-back makes them (feedMember). Null: not a set's capture.
 */
export function membersOfSetCapture(document: unknown): TSetMember[] | null {
  if (typeof document !== "object" || document === null) return null;
  const doc = document as Record<string, unknown>;
  for (const name of ["listing", "places"]) {
    const members = ZMembersSchema.safeParse(doc[name]);
    if (members.success) return members.data;
  }
  const entries = ZFeedEntriesSchema.safeParse(doc.entries);
  if (entries.success) return entries.data.map((entry) => feedMember(entry as unknown as TFeedEntry));
  return null;
}
