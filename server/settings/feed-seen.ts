import type { TDb, TTx } from "@/server/db";

/**
 * "New since you last looked" (docs/design.md §6): what counts as new is what arrived after the previous
 * VISIT, not the previous page load — the feed reloads itself while open (live events, Refresh), and a marker
 * that vanished on each reload would mark nothing by the time one reads it. A visit is a run of feed views
 * with no gap longer than FEED_VISIT_GAP_MS (30 minutes by default); activity (`lastActiveAt`, which gates the
 * enhancement) is a different thing.
 */

/** Changes captured after `since` are new to the reader; null on a first visit (nothing to compare with). */
export type TFeedSeen = { since: Date | null };

/**
 * Records a view of the feed at `now` — which is also activity (`lastActiveAt`, the enhancement's 2-hour rule) —
 * and answers the threshold for this visit, in one statement (two tabs loading at once agree): a view more than `visitGapMs` after the last one starts a new visit,
 * whose threshold is that last view; a view within the gap keeps the visit's threshold. A view older than the
 * last recorded one (a slow request) never moves anything back.
 */
export async function recordFeedView(
  db: TDb | TTx,
  userId: string,
  input: { now: Date; visitGapMs: number },
): Promise<TFeedSeen> {
  const { now } = input;
  const gapStart = new Date(now.getTime() - input.visitGapMs);
  const rows = await db.$queryRaw<{ feedSeenBefore: Date | null }[]>`
    INSERT INTO "UserSettings" ("userId", "feedSeenAt", "lastActiveAt", "updatedAt")
    VALUES (${userId}, ${now}, ${now}, ${now})
    ON CONFLICT ("userId") DO UPDATE SET
      "lastActiveAt" = GREATEST(COALESCE("UserSettings"."lastActiveAt", ${now}), ${now}),
      "feedSeenBefore" = CASE
        WHEN "UserSettings"."feedSeenAt" IS NOT NULL AND "UserSettings"."feedSeenAt" < ${gapStart}
          THEN "UserSettings"."feedSeenAt"
        ELSE "UserSettings"."feedSeenBefore"
      END,
      "feedSeenAt" = GREATEST(COALESCE("UserSettings"."feedSeenAt", ${now}), ${now})
    RETURNING "feedSeenBefore"`;
  const since = rows[0]?.feedSeenBefore;
  return { since: since ? new Date(since) : null };
}
