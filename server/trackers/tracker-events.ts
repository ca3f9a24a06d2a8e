import type { TDb, TTx } from "../db";
import { subscribe, type TCheckOutcome } from "../events";
import { getTracker } from "../intelligence/tracker-store";

/**
 * What an open tracker page hears about its tracker (tracker.events): a run ended (`checked`, with how —
 * its "last checked", runs log and failing status moved; published after every completed or failed run), or
 * a change was recorded / the status moved (`changed`). The page reloads its queries in place and announces
 * the outcome. Events come from the bus (docs/design.md §2): the hot loop does not know pages exist.
 */
export type TTrackerEvent =
  | { id: string; kind: "checked"; runId: string; outcome: TCheckOutcome }
  | { id: string; kind: "changed"; materiality: "material" | "notable" | "baseline" | null };

/**
 * A page subscribes a moment after its data was read on the server; a fresh subscription without a resume id
 * replays this tracker's latest event if it is this recent (at worst one extra reload).
 */
export const TRACKER_EVENTS_REPLAY_MS = 30_000;

/**
 * Yields the events of one of the user's trackers until `signal` aborts. Owner-checked before anything is
 * yielded: another person's or an unknown tracker is NOT_FOUND (docs/design.md §9). `lastEventId` (an SSE reconnect,
 * or the page's "data read at") replays what is newer than it.
 */
export async function* trackerEvents(
  db: TDb | TTx,
  input: { userId: string; trackerId: string; lastEventId?: string | null; signal?: AbortSignal },
): AsyncGenerator<TTrackerEvent> {
  const tracker = await getTracker(db, { userId: input.userId, trackerId: input.trackerId });
  const events = subscribe(input.userId, ["tracker.checked", "tracker.changed"], {
    lastEventId: input.lastEventId ?? null,
    replayWithinMs: TRACKER_EVENTS_REPLAY_MS,
    filter: (event) => event.data.trackerId === tracker.id,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  for await (const event of events) {
    if (event.topic === "tracker.checked") {
      const data = event.data as { runId: string; outcome: TCheckOutcome };
      yield { id: event.id, kind: "checked", runId: data.runId, outcome: data.outcome };
    } else {
      const data = event.data as { materiality: "material" | "notable" | "baseline" | null };
      yield { id: event.id, kind: "changed", materiality: data.materiality };
    }
  }
}
