import type { TDb } from "../db";
import { trackWork } from "../lifecycle/in-flight-work";
import { drainNotifications } from "./run-notifications";

type TPump = { running: Promise<void> | null; again: boolean };

// Per database client, on globalThis: Next may load this module once per route bundle, and all must share one pump.
const g = globalThis as { __bellwetherNotificationPumps?: WeakMap<TDb, TPump> };
g.__bellwetherNotificationPumps ??= new WeakMap();
const pumps = g.__bellwetherNotificationPumps;

/**
 * Wakes the sender right after a change (or a failing refresh) is recorded, whatever recorded it — a scheduler pass,
 * "Refresh now", the API (docs/scheduling.md "Notifications"): the notice goes out now, not at the next pass. One
 * drain at a time per process and database; a kick while one runs makes it drain once more when it ends (that
 * change may have committed after the running drain read the outbox). Counted as in-flight work, so a graceful
 * shutdown lets it finish. Resolves when the drain that covers this kick has ended; never rejects.
 */
export function kickNotifications(db: TDb): Promise<void> {
  let pump = pumps.get(db);
  if (!pump) {
    pump = { running: null, again: false };
    pumps.set(db, pump);
  }
  if (pump.running) {
    pump.again = true;
    return pump.running;
  }
  const current = pump;
  current.running = trackWork("notifications", async () => {
    do {
      current.again = false;
      await drainNotifications(db);
    } while (current.again);
  }).finally(() => {
    current.running = null;
  });
  return current.running;
}
