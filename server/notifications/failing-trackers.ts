import type { TDb } from "../db";
import type { TNotifyConfig } from "./config";
import { enqueuePlainNotice } from "./fan-out";
import { getNotificationDefaults, resolveRouting } from "./routing";

type TFlip = {
  kind: "failing" | "attention";
  trackerId: string;
  userId: string;
  decision: string;
  /** failing: the last error; attention: why it needs attention (docs/field-health.md). */
  detail: string | null;
  /** Entering the state (true) or leaving it (false). */
  on: boolean;
};

/**
 * "Failing tracker → once, and once when it recovers" (docs/notifications.md, "Routing"). The flag on the tracker's route row is the gate:
 * one conditional upsert flips it, and only the transaction that flipped it enqueues the notice, so two workers
 * never tell twice. Failing = `failingAfter` consecutive failed refreshes (an active tracker); recovered = back to 0.
 *
 * "Needs attention" (docs/field-health.md) rides the same scan (an idle pass stays one look and this one statement)
 * and the same gate on its own flag: one notice on entering the state, none while it stays, the flag reset silently
 * once every field reads again, so a tracker that breaks again is told again. It follows the "failing" routing.
 */
export async function noticeFailingTrackers(db: TDb, input: { config: TNotifyConfig; now: Date }): Promise<number> {
  const n = input.config.failingAfter;
  const candidates = await db.$queryRaw<TFlip[]>`
    SELECT 'failing' AS kind, t.id AS "trackerId", t."userId", t.decision, t."lastError" AS detail,
      (t."consecutiveFailures" >= ${n}) AS "on"
    FROM "Tracker" t LEFT JOIN "TrackerNotificationRoute" r ON r."trackerId" = t.id
    WHERE (t."consecutiveFailures" >= ${n} AND t.status = 'active' AND COALESCE(r."failingNotified", false) = false)
       OR (r."failingNotified" = true AND t."consecutiveFailures" = 0)
    UNION ALL
    SELECT 'attention' AS kind, t.id, t."userId", t.decision, t."attentionReason", (t."attentionReason" IS NOT NULL) AS "on"
    FROM "Tracker" t LEFT JOIN "TrackerNotificationRoute" r ON r."trackerId" = t.id
    WHERE (t."attentionReason" IS NOT NULL AND t.status = 'active' AND COALESCE(r."attentionNotified", false) = false)
       OR (r."attentionNotified" = true AND t."attentionReason" IS NULL)
    LIMIT 100`;
  let told = 0;
  for (const c of candidates) {
    await db.$transaction(async (tx) => {
      const flipped =
        c.kind === "failing"
          ? await tx.$executeRaw`
        INSERT INTO "TrackerNotificationRoute" ("trackerId", "userId", "failingNotified", "updatedAt")
        VALUES (${c.trackerId}, ${c.userId}, ${c.on}, ${input.now})
        ON CONFLICT ("trackerId") DO UPDATE SET "failingNotified" = EXCLUDED."failingNotified", "updatedAt" = EXCLUDED."updatedAt"
        WHERE "TrackerNotificationRoute"."failingNotified" IS DISTINCT FROM EXCLUDED."failingNotified"`
          : await tx.$executeRaw`
        INSERT INTO "TrackerNotificationRoute" ("trackerId", "userId", "attentionNotified", "updatedAt")
        VALUES (${c.trackerId}, ${c.userId}, ${c.on}, ${input.now})
        ON CONFLICT ("trackerId") DO UPDATE SET "attentionNotified" = EXCLUDED."attentionNotified", "updatedAt" = EXCLUDED."updatedAt"
        WHERE "TrackerNotificationRoute"."attentionNotified" IS DISTINCT FROM EXCLUDED."attentionNotified"`;
      if (flipped === 0) return;
      if (c.kind === "attention" && !c.on) return;
      // One after the other: one transaction, one connection (see fan-out.ts).
      const defaults = await getNotificationDefaults(tx, { userId: c.userId });
      const route = await tx.trackerNotificationRoute.findUnique({ where: { trackerId: c.trackerId } });
      if (!resolveRouting(defaults, route).failing) return;
      const url = `${input.config.appUrl.replace(/\/+$/, "")}/trackers/${encodeURIComponent(c.trackerId)}`;
      const state = c.kind === "attention" ? "attention" : c.on ? "failing" : "recovered";
      await enqueuePlainNotice(tx, {
        userId: c.userId,
        trackerId: c.trackerId,
        key: `${state}:${c.trackerId}:${input.now.getTime()}`,
        now: input.now,
        notice:
          c.kind === "attention"
            ? {
                title: `Tracker needs attention: ${c.decision}`,
                text: `${c.detail ?? "A field reads nothing."} Edit the tracker to point the field at the right element again.`,
                url,
              }
            : c.on
              ? {
                  title: `Tracker failing: ${c.decision}`,
                  text: `The last ${n} refreshes failed.${c.detail ? ` Last error: ${c.detail}` : ""}`,
                  url,
                }
              : { title: `Tracker recovered: ${c.decision}`, text: "Refreshes succeed again.", url },
      });
      told++;
    });
  }
  return told;
}
