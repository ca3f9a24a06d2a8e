import type { TDb } from "../db";
import { logger } from "../logger";
import { notifyConfigFromEnv, type TNotifyConfig } from "./config";
import { CLAIM_BATCH, deliverDue, type TDeliverSummary } from "./deliver";
import { noticeFailingTrackers } from "./failing-trackers";
import { fanOutChanges } from "./fan-out";

export type TNotificationsPass = { fannedOut: number; failingNotices: number; delivery: TDeliverSummary };

/** Most sender passes one drain makes (50 deliveries each); what is left is the next drain's. */
const MAX_DRAIN_PASSES = 40;

/**
 * One notifications pass: outbox → deliveries, failing / recovered trackers, then the due deliveries (one batch).
 * Never throws (logged); the next pass tries again.
 */
export async function runNotifications(
  db: TDb,
  input: { now?: Date; config?: TNotifyConfig } = {},
): Promise<TNotificationsPass | null> {
  const now = input.now ?? new Date();
  try {
    const config = input.config ?? notifyConfigFromEnv();
    // An idle scheduler runs this every pass: one look says whether the fan-out and the sender have anything to do
    // (docs/scheduling.md "Cost when idle"). A change committed just after the look wakes its own sender.
    const [pending] = await db.$queryRaw<{ outbox: boolean; due: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM "ChangeOutbox") AS outbox,
        EXISTS (SELECT 1 FROM "NotificationDelivery" WHERE status = 'pending' AND "dueAt" <= ${now}) AS due`;
    let fannedOut = 0;
    if (pending?.outbox !== false) {
      for (let n = await fanOutChanges(db, { config, now }); n > 0; n = await fanOutChanges(db, { config, now })) {
        fannedOut += n;
        if (fannedOut >= 1000) break; // the rest next pass
      }
    }
    const failingNotices = await noticeFailingTrackers(db, { config, now });
    const delivery =
      pending?.due === false && fannedOut === 0 && failingNotices === 0
        ? { claimed: 0, sent: 0, failed: 0 }
        : await deliverDue(db, { config, now });
    return { fannedOut, failingNotices, delivery };
  } catch (error) {
    logger.child({ component: "notifications" }).error("notifications pass failed", { error });
    return null;
  }
}

/**
 * Passes until the backlog is gone (docs/scheduling.md "Notifications"): a pass that claimed a full batch is followed
 * at once by another, so 20 changes × 4 channels go out together rather than one batch per scheduler pass. Without
 * `now`, each pass reads the clock afresh. Never throws; null when the first pass failed.
 */
export async function drainNotifications(
  db: TDb,
  input: { now?: Date; config?: TNotifyConfig } = {},
): Promise<TNotificationsPass | null> {
  let total: TNotificationsPass | null = null;
  for (let i = 0; i < MAX_DRAIN_PASSES; i++) {
    const pass = await runNotifications(db, input);
    if (!pass) break;
    total = total
      ? {
          fannedOut: total.fannedOut + pass.fannedOut,
          failingNotices: total.failingNotices + pass.failingNotices,
          delivery: {
            claimed: total.delivery.claimed + pass.delivery.claimed,
            sent: total.delivery.sent + pass.delivery.sent,
            failed: total.delivery.failed + pass.delivery.failed,
          },
        }
      : pass;
    if (pass.delivery.claimed < CLAIM_BATCH && pass.fannedOut < 1000) break;
  }
  return total;
}
