import { subscribe } from "@/server/events";

/**
 * "This user's feed changed": what the feed page listens to (feed.live). The feed is composed from above, so it
 * subscribes to what the domains below publish on the event bus — a tracker recorded a change
 * (`tracker.changed`, from the refresh hot loop), or something only the feed shows changed (`feed.changed`:
 * enhancement, settings, calendar) — and never asks them to know it exists (docs/design.md §2).
 */
export type TFeedEvent = { id: string; userId: string; reason: "enhanced" | "changed" | "settings" | "calendar" };

/**
 * A page subscribes at the same moment it loads the feed, and background work started by that load (calendar
 * refetch, enhancement) may finish before the subscription is attached. A fresh subscription therefore replays
 * the user's latest event if it is this recent: at worst one extra reload.
 */
export const FRESH_SUBSCRIBER_REPLAY_MS = 30_000;

/** Yields this user's feed events until `signal` aborts; resumes after `lastEventId` on a reconnect. */
export async function* feedEvents(
  userId: string,
  opts: { lastEventId?: string | null; signal?: AbortSignal },
): AsyncGenerator<TFeedEvent> {
  const events = subscribe(userId, ["tracker.changed", "feed.changed"], {
    ...opts,
    replayWithinMs: FRESH_SUBSCRIBER_REPLAY_MS,
  });
  for await (const event of events) {
    yield {
      id: event.id,
      userId,
      reason: event.topic === "feed.changed" ? (event.data as { reason: TFeedEvent["reason"] }).reason : "changed",
    };
  }
}
