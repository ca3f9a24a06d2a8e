import type { TDb } from "../db";
import type { TNotifyConfig } from "./config";
import { enqueuePlainNotice } from "./fan-out";
import { getNotificationDefaults, resolveRouting } from "./routing";

type TFlip = { trackerId: string; userId: string; decision: string; lastError: string | null; failing: boolean };

/**
 * "Failing tracker → once, and once when it recovers" (issue #15). The flag on the tracker's route row is the gate:
 * one conditional upsert flips it, and only the transaction that flipped it enqueues the notice, so two workers
 * never tell twice. Failing = `failingAfter` consecutive failed refreshes (an active tracker); recovered = back to 0.
 */
export async function noticeFailingTrackers(db: TDb, input: { config: TNotifyConfig; now: Date }): Promise<number> {
  const n = input.config.failingAfter;
  const candidates = await db.$queryRaw<TFlip[]>`
    SELECT t.id AS "trackerId", t."userId", t.decision, t."lastError", (t."consecutiveFailures" >= ${n}) AS failing
    FROM "Tracker" t LEFT JOIN "TrackerNotificationRoute" r ON r."trackerId" = t.id
    WHERE (t."consecutiveFailures" >= ${n} AND t.status = 'active' AND COALESCE(r."failingNotified", false) = false)
       OR (r."failingNotified" = true AND t."consecutiveFailures" = 0)
    LIMIT 100`;
  let told = 0;
  for (const c of candidates) {
    await db.$transaction(async (tx) => {
      const flipped = await tx.$executeRaw`
        INSERT INTO "TrackerNotificationRoute" ("trackerId", "userId", "failingNotified", "updatedAt")
        VALUES (${c.trackerId}, ${c.userId}, ${c.failing}, ${input.now})
        ON CONFLICT ("trackerId") DO UPDATE SET "failingNotified" = EXCLUDED."failingNotified", "updatedAt" = EXCLUDED."updatedAt"
        WHERE "TrackerNotificationRoute"."failingNotified" IS DISTINCT FROM EXCLUDED."failingNotified"`;
      if (flipped === 0) return;
      const [defaults, route] = await Promise.all([
        getNotificationDefaults(tx, { userId: c.userId }),
        tx.trackerNotificationRoute.findUnique({ where: { trackerId: c.trackerId } }),
      ]);
      if (!resolveRouting(defaults, route).failing) return;
      const url = `${input.config.appUrl.replace(/\/+$/, "")}/trackers/${encodeURIComponent(c.trackerId)}`;
      await enqueuePlainNotice(tx, {
        userId: c.userId,
        trackerId: c.trackerId,
        key: `${c.failing ? "failing" : "recovered"}:${c.trackerId}:${input.now.getTime()}`,
        now: input.now,
        notice: c.failing
          ? {
              title: `Tracker failing: ${c.decision}`,
              text: `The last ${n} refreshes failed.${c.lastError ? ` Last error: ${c.lastError}` : ""}`,
              url,
            }
          : { title: `Tracker recovered: ${c.decision}`, text: "Refreshes succeed again.", url },
      });
      told++;
    });
  }
  return told;
}
