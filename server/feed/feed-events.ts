import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { TDb, TTx } from "@/server/db";
import { getEnv } from "@/server/env";
import { logger } from "@/server/logger";

/**
 * "This user's feed changed" events. In-process via an EventEmitter; across app instances via
 * PostgreSQL LISTEN/NOTIFY (only with DATABASE_URL: embedded PGlite is single-process by design, its
 * data directory is locked to one server, so the local emitter already reaches every open page).
 */
export const FEED_CHANNEL = "bellwether_feed";

export type TFeedEvent = { id: string; userId: string; reason: "enhanced" | "changed" | "settings" | "calendar" };

/**
 * A page subscribes at the same moment it loads the feed, and background work started by that load
 * (calendar refetch, enhancement) may finish before the subscription is attached. A fresh subscription
 * therefore replays the user's latest event if it is this recent: at worst one extra reload.
 */
export const FRESH_SUBSCRIBER_REPLAY_MS = 30_000;

type TState = {
  emitter: EventEmitter;
  instanceId: string;
  lastId: number;
  latest: Map<string, TFeedEvent>;
  listening?: Promise<void>;
};
const g = globalThis as { __bellwetherFeedEvents?: TState };
g.__bellwetherFeedEvents ??= { emitter: new EventEmitter(), instanceId: randomUUID(), lastId: 0, latest: new Map() };
const state = g.__bellwetherFeedEvents;
state.emitter.setMaxListeners(0);

function nextId(): string {
  // Monotonic, time-based: comparable across instances and reconnects.
  state.lastId = Math.max(state.lastId + 1, Date.now());
  return String(state.lastId);
}

function deliver(event: TFeedEvent): void {
  state.latest.set(event.userId, event);
  state.lastId = Math.max(state.lastId, Number(event.id));
  state.emitter.emit("feed", event);
}

/** Tell open feed pages (here and on other instances) to reload. Never throws. */
export async function notifyFeedChanged(
  db: TDb | TTx,
  userId: string,
  reason: TFeedEvent["reason"] = "changed",
): Promise<void> {
  const event: TFeedEvent = { id: nextId(), userId, reason };
  deliver(event);
  if (!getEnv().DATABASE_URL) return;
  try {
    const payload = JSON.stringify({ ...event, from: state.instanceId });
    await db.$executeRaw`SELECT pg_notify(${FEED_CHANNEL}, ${payload})`;
  } catch (error) {
    logger.warn("feed notify failed", { error: error instanceof Error ? error.message : String(error) });
  }
}

/** One LISTEN connection per process (Postgres only); reconnects lazily on the next subscribe after an error. */
function ensureListening(): void {
  const url = getEnv().DATABASE_URL;
  if (!url || state.listening) return;
  state.listening = (async () => {
    const pg = await import("pg");
    const client = new pg.default.Client({ connectionString: url });
    client.on("error", (error) => {
      logger.warn("feed LISTEN connection lost", { error: error.message });
      state.listening = undefined;
      client.end().catch(() => {});
    });
    client.on("notification", (msg) => {
      if (msg.channel !== FEED_CHANNEL || !msg.payload) return;
      try {
        const parsed = JSON.parse(msg.payload) as TFeedEvent & { from?: string };
        if (parsed.from === state.instanceId) return; // delivered locally already
        deliver({ id: String(parsed.id), userId: String(parsed.userId), reason: parsed.reason });
      } catch {
        // ignore malformed payloads
      }
    });
    await client.connect();
    await client.query(`LISTEN ${FEED_CHANNEL}`);
  })().catch((error) => {
    logger.warn("feed LISTEN failed", { error: error instanceof Error ? error.message : String(error) });
    state.listening = undefined;
  });
}

/**
 * Yields this user's feed events until `signal` aborts. With `lastEventId` (a reconnect), an event
 * newer than it that happened while disconnected is replayed first; without one (a page that just
 * loaded), an event from the last FRESH_SUBSCRIBER_REPLAY_MS is.
 */
export async function* feedEvents(userId: string, opts: { lastEventId?: string | null; signal?: AbortSignal }) {
  ensureListening();
  const queue: TFeedEvent[] = [];
  let wake: (() => void) | null = null;
  const onEvent = (e: TFeedEvent) => {
    if (e.userId !== userId) return;
    queue.push(e);
    wake?.();
  };
  state.emitter.on("feed", onEvent);
  const onAbort = () => wake?.();
  opts.signal?.addEventListener("abort", onAbort);
  try {
    const missed = state.latest.get(userId);
    const replay = opts.lastEventId
      ? missed && Number(missed.id) > Number(opts.lastEventId)
      : missed && Number(missed.id) >= Date.now() - FRESH_SUBSCRIBER_REPLAY_MS;
    if (missed && replay) yield missed;
    while (!opts.signal?.aborted) {
      const next = queue.shift();
      if (next) {
        yield next;
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = null;
    }
  } finally {
    state.emitter.off("feed", onEvent);
    opts.signal?.removeEventListener("abort", onAbort);
  }
}
