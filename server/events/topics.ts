import type { TCheckOutcome } from "@/contracts/refresh-run";
/**
 * The typed events domains publish (docs/design.md §2: events sit below every domain, so the hot loop can say
 * "a tracker changed" without knowing that a feed exists). Every event belongs to one user and is only
 * delivered to subscribers of that user.
 */
export type TEventTopics = {
  /** A refresh recorded a change (material or notable) or a tracker's status moved. */
  "tracker.changed": { userId: string; trackerId: string; materiality: "material" | "notable" | "baseline" | null };
  /**
   * A refresh of the tracker ended (completed or failed), whatever it found: its "last checked", runs log and
   * failure status moved. Sent after every such run — with no statement of its own (docs/design.md §3: the unchanged path
   * stays at one read and one write; on PostgreSQL its NOTIFY rides inside the run's final statement). `runId` is the
   * run's RefreshRun id, as its Refresh now answer names it.
   */
  "tracker.checked": { userId: string; trackerId: string; runId: string; outcome: TCheckOutcome };
  /** Something only the feed knows about changed: an enhancement landed, settings changed, context refreshed. */
  "feed.changed": { userId: string; reason: "enhanced" | "settings" | "calendar" };
};

/** How a run ended, as `tracker.checked` reports it (the refresh outcomes of a run that ran, or "failed"). */
export type { TCheckOutcome };

export type TTopic = keyof TEventTopics;

/** What subscribers receive: the payload plus a monotonic id (comparable across instances) for SSE resume. */
export type TEvent<K extends TTopic = TTopic> = { id: string; topic: K; data: TEventTopics[K] };

export const TOPICS = ["tracker.changed", "tracker.checked", "feed.changed"] as const satisfies readonly TTopic[];
