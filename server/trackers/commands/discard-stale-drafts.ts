import type { TDb } from "../../db";
import { deleteStaleSetupSessions } from "../../intelligence/setup";
import { deleteStaleDraftTrackers } from "../../intelligence/tracker-store";

/** A draft nobody touched for this long is discarded automatically (docs/trackers.md, "The trackers list": drafts must not pile up). */
export const STALE_DRAFT_DAYS = 14;
const DAY_MS = 24 * 60 * 60_000;

export type TDiscardStaleDraftsResult = { trackers: number; sessions: number };

/**
 * Everyone's drafts untouched for STALE_DRAFT_DAYS by `now`: draft trackers (never locked) whose row and setup
 * conversation have not changed since, with that conversation, and conversations that never bound a page. Locked
 * trackers of any status are never touched. Run at most hourly by the maintenance hook (server/triggers).
 */
export async function discardStaleDrafts(
  db: TDb,
  input: { now: Date; days?: number },
): Promise<TDiscardStaleDraftsResult> {
  const untouchedSince = new Date(input.now.getTime() - (input.days ?? STALE_DRAFT_DAYS) * DAY_MS);
  const trackers = await deleteStaleDraftTrackers(db, { untouchedSince });
  const sessions = await deleteStaleSetupSessions(db, { untouchedSince });
  return { trackers, sessions };
}
