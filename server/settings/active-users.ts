import type { TDb } from "@/server/db";

/**
 * People who opened the app since `since` and whose feed has time-dependent context (a saved place → the
 * forecast, a calendar URL → upcoming events), most recently active first. The background sweep re-checks their
 * feed (server/feed/background); everyone else's feed changes only when a tracker records a change.
 */
export async function listActiveUsersWithContext(db: TDb, input: { since: Date; limit: number }): Promise<string[]> {
  const rows = await db.userSettings.findMany({
    where: {
      lastActiveAt: { gte: input.since },
      OR: [{ latitude: { not: null }, longitude: { not: null } }, { calendarUrl: { not: null } }],
    },
    orderBy: { lastActiveAt: "desc" },
    take: input.limit,
    select: { userId: true },
  });
  return rows.map((r) => r.userId);
}
