/**
 * The typed events domains publish (DESIGN.md §2: events sit below every domain, so the hot loop can say
 * "a tracker changed" without knowing that a feed exists). Every event belongs to one user and is only
 * delivered to subscribers of that user.
 */
export type TEventTopics = {
  /** A refresh recorded a change (material or notable) or a tracker's status moved. */
  "tracker.changed": { userId: string; trackerId: string; materiality: "material" | "notable" | "baseline" | null };
  /** Something only the feed knows about changed: an enhancement landed, settings changed, context refreshed. */
  "feed.changed": { userId: string; reason: "enhanced" | "settings" | "calendar" };
};

export type TTopic = keyof TEventTopics;

/** What subscribers receive: the payload plus a monotonic id (comparable across instances) for SSE resume. */
export type TEvent<K extends TTopic = TTopic> = { id: string; topic: K; data: TEventTopics[K] };

export const TOPICS = ["tracker.changed", "feed.changed"] as const satisfies readonly TTopic[];
