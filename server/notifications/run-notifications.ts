import type { TDb } from "../db";
import { logger } from "../logger";
import { notifyConfigFromEnv, type TNotifyConfig } from "./config";
import { deliverDue, type TDeliverSummary } from "./deliver";
import { noticeFailingTrackers } from "./failing-trackers";
import { fanOutChanges } from "./fan-out";

export type TNotificationsPass = { fannedOut: number; failingNotices: number; delivery: TDeliverSummary };

/**
 * One notifications pass for the scheduler's hooks (worker and cron, after each refresh pass): outbox → deliveries,
 * failing / recovered trackers, then the due deliveries. Never throws (logged); the next pass tries again.
 */
export async function runNotifications(
  db: TDb,
  input: { now?: Date; config?: TNotifyConfig } = {},
): Promise<TNotificationsPass | null> {
  const now = input.now ?? new Date();
  try {
    const config = input.config ?? notifyConfigFromEnv();
    let fannedOut = 0;
    for (let n = await fanOutChanges(db, { config, now }); n > 0; n = await fanOutChanges(db, { config, now })) {
      fannedOut += n;
      if (fannedOut >= 1000) break; // the rest next pass
    }
    const failingNotices = await noticeFailingTrackers(db, { config, now });
    const delivery = await deliverDue(db, { config, now });
    return { fannedOut, failingNotices, delivery };
  } catch (error) {
    logger.child({ component: "notifications" }).error("notifications pass failed", { error });
    return null;
  }
}
