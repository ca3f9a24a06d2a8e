import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { TDb, TTx } from "@/server/db";
import { getEnv } from "@/server/env";
import { logger } from "@/server/logger";
import { createAsyncQueue } from "./async-queue";
import { type TEvent, type TEventTopics, TOPICS, type TTopic } from "./topics";

/**
 * Typed publish/subscribe. In-process through an EventEmitter; across app instances and workers through
 * PostgreSQL LISTEN/NOTIFY when DATABASE_URL is set (embedded PGlite belongs to one process, so the local
 * emitter already reaches every open page there).
 */
export const EVENTS_CHANNEL = "bellwether_events";

type TState = {
  emitter: EventEmitter;
  instanceId: string;
  lastId: number;
  /** The newest event per (user, topic), replayed to a subscriber that reconnects with an older id. */
  latest: Map<string, TEvent>;
  listening?: Promise<void>;
};
// One bus per process, also across Next's module instances (route bundles each load this file).
const g = globalThis as { __bellwetherEvents?: TState };
g.__bellwetherEvents ??= { emitter: new EventEmitter(), instanceId: randomUUID(), lastId: 0, latest: new Map() };
const state = g.__bellwetherEvents;
state.emitter.setMaxListeners(0);

const latestKey = (userId: string, topic: TTopic) => `${userId}\0${topic}`;

function nextId(): string {
  // Monotonic and time-based: comparable across instances and reconnects.
  state.lastId = Math.max(state.lastId + 1, Date.now());
  return String(state.lastId);
}

function deliver(event: TEvent): void {
  state.latest.set(latestKey(event.data.userId, event.topic), event);
  state.lastId = Math.max(state.lastId, Number(event.id));
  state.emitter.emit("event", event);
}

/** Publishes an event here and (with PostgreSQL) on every other instance. Never throws. */
export async function publish<K extends TTopic>(db: TDb | TTx, topic: K, data: TEventTopics[K]): Promise<void> {
  const event: TEvent<K> = { id: nextId(), topic, data };
  deliver(event);
  if (!getEnv().DATABASE_URL) return;
  try {
    const payload = JSON.stringify({ ...event, from: state.instanceId });
    await db.$executeRaw`SELECT pg_notify(${EVENTS_CHANNEL}, ${payload})`;
  } catch (error) {
    logger.warn("event publish failed", { topic, error });
  }
}

function parseRemote(payload: string): TEvent | null {
  try {
    const parsed = JSON.parse(payload) as TEvent & { from?: string };
    if (parsed.from === state.instanceId) return null; // delivered locally already
    if (!TOPICS.includes(parsed.topic) || typeof parsed.data?.userId !== "string") return null;
    return { id: String(parsed.id), topic: parsed.topic, data: parsed.data } as TEvent;
  } catch {
    return null;
  }
}

/** One LISTEN connection per process (PostgreSQL only); reconnects on the next subscribe after an error. */
function ensureListening(): void {
  const url = getEnv().DATABASE_URL;
  if (!url || state.listening) return;
  state.listening = (async () => {
    const pg = await import("pg");
    const client = new pg.default.Client({ connectionString: url });
    client.on("error", (error) => {
      logger.warn("events LISTEN connection lost", { error });
      state.listening = undefined;
      client.end().catch(() => {});
    });
    client.on("notification", (msg) => {
      if (msg.channel !== EVENTS_CHANNEL || !msg.payload) return;
      const event = parseRemote(msg.payload);
      if (event) deliver(event);
    });
    await client.connect();
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
  })().catch((error) => {
    logger.warn("events LISTEN failed", { error });
    state.listening = undefined;
  });
}

/**
 * Yields one user's events of the given topics until `signal` aborts. With `lastEventId` (an SSE reconnect),
 * the newest event per topic that is newer than it is replayed first; without one, `replayWithinMs` replays the
 * newest event per topic that is at most that old (a page that subscribes right after loading would otherwise
 * miss what background work started by that load published in between).
 */
export async function* subscribe<K extends TTopic>(
  userId: string,
  topics: readonly K[],
  opts: { lastEventId?: string | null; signal?: AbortSignal; replayWithinMs?: number } = {},
): AsyncGenerator<TEvent<K>> {
  ensureListening();
  const queue = createAsyncQueue<TEvent<K>>(opts.signal ? { signal: opts.signal } : {});
  const onEvent = (event: TEvent) => {
    if (event.data.userId === userId && (topics as readonly TTopic[]).includes(event.topic)) {
      queue.push(event as TEvent<K>);
    }
  };
  state.emitter.on("event", onEvent);
  try {
    const after = opts.lastEventId
      ? Number(opts.lastEventId)
      : opts.replayWithinMs
        ? Date.now() - opts.replayWithinMs - 1
        : Number.POSITIVE_INFINITY;
    const missed = topics
      .map((topic) => state.latest.get(latestKey(userId, topic)))
      .filter((e): e is TEvent<K> => !!e && Number(e.id) > after)
      .sort((a, b) => Number(a.id) - Number(b.id));
    for (const event of missed) yield event;
    yield* queue;
  } finally {
    state.emitter.off("event", onEvent);
    queue.end();
  }
}
