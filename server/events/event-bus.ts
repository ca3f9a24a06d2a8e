import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { TDb, TTx } from "../db";
import { getEnv } from "../env";
import { logger } from "../logger";
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
  /**
   * The newest event per (user, topic, tracker), replayed to a subscriber that reconnects with an older id: per
   * tracker too, so a page that follows one tracker is not robbed of its replay by another tracker's newer event.
   */
  latest: Map<string, Map<string, TEvent>>;
  listening?: Promise<void>;
};
// One bus per process, also across Next's module instances (route bundles each load this file).
const g = globalThis as { __bellwetherEvents?: TState };
g.__bellwetherEvents ??= { emitter: new EventEmitter(), instanceId: randomUUID(), lastId: 0, latest: new Map() };
const state = g.__bellwetherEvents;
state.emitter.setMaxListeners(0);

/** Per user: topic + tracker (when the event names one). */
const latestKey = (event: TEvent) => {
  const trackerId = (event.data as { trackerId?: unknown }).trackerId;
  return `${event.topic}\0${typeof trackerId === "string" ? trackerId : ""}`;
};

function nextId(): string {
  // Monotonic and time-based: comparable across instances and reconnects.
  state.lastId = Math.max(state.lastId + 1, Date.now());
  return String(state.lastId);
}

function deliver(event: TEvent): void {
  let mine = state.latest.get(event.data.userId);
  if (!mine) {
    mine = new Map();
    state.latest.set(event.data.userId, mine);
  }
  mine.set(latestKey(event), event);
  state.lastId = Math.max(state.lastId, Number(event.id));
  state.emitter.emit("event", event);
}

/** Publishes an event here and (with PostgreSQL) on every other instance. Never throws. */
export async function publish<K extends TTopic>(db: TDb | TTx, topic: K, data: TEventTopics[K]): Promise<void> {
  const event: TEvent<K> = { id: nextId(), topic, data };
  deliver(event);
  if (!getEnv().DATABASE_URL) return;
  try {
    await db.$executeRaw`SELECT pg_notify(${EVENTS_CHANNEL}, ${notifyPayload(event)})`;
  } catch (error) {
    logger.warn("event publish failed", { topic, error });
  }
}

function notifyPayload(event: TEvent): string {
  return JSON.stringify({ ...event, from: state.instanceId });
}

/**
 * An event made ready for a publisher that sends a statement anyway (the refresh's final write): `notify` is
 * the `pg_notify(channel, payload)` arguments to fold into that statement — null on the embedded database,
 * where the in-process emitter already reaches every open page — and `deliverHere()` hands it to this
 * process's subscribers; call it once the statement has committed. The event costs no statement of its own
 * (publish() would send one on PostgreSQL).
 */
export type TPreparedEvent<K extends TTopic = TTopic> = {
  event: TEvent<K>;
  notify: { channel: string; payload: string } | null;
  deliverHere: () => void;
};

export function prepareEvent<K extends TTopic>(topic: K, data: TEventTopics[K]): TPreparedEvent<K> {
  const event: TEvent<K> = { id: nextId(), topic, data };
  return {
    event,
    notify: getEnv().DATABASE_URL ? { channel: EVENTS_CHANNEL, payload: notifyPayload(event) } : null,
    deliverHere: () => deliver(event),
  };
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

/** The newest remembered event per topic among this user's that pass `filter`. */
function newestPerTopic<K extends TTopic>(
  userId: string,
  topics: readonly K[],
  filter: (event: TEvent<K>) => boolean,
): TEvent<K>[] {
  const newest = new Map<TTopic, TEvent<K>>();
  for (const event of state.latest.get(userId)?.values() ?? []) {
    if (!(topics as readonly TTopic[]).includes(event.topic)) continue;
    const typed = event as TEvent<K>;
    if (!filter(typed)) continue;
    const seen = newest.get(event.topic);
    if (!seen || Number(seen.id) < Number(event.id)) newest.set(event.topic, typed);
  }
  return [...newest.values()];
}

/**
 * Yields one user's events of the given topics (and, with `filter`, only those it accepts — e.g. one tracker's)
 * until `signal` aborts. With `lastEventId` (an SSE reconnect, or a page passing the time its data was read),
 * the newest matching event per topic that is newer than it is replayed first; without one, `replayWithinMs`
 * replays the newest matching event per topic that is at most that old (a page that subscribes right after
 * loading would otherwise miss what background work started by that load published in between).
 */
export async function* subscribe<K extends TTopic>(
  userId: string,
  topics: readonly K[],
  opts: {
    lastEventId?: string | null;
    signal?: AbortSignal;
    replayWithinMs?: number;
    filter?: (event: TEvent<K>) => boolean;
  } = {},
): AsyncGenerator<TEvent<K>> {
  ensureListening();
  const filter = opts.filter ?? (() => true);
  const queue = createAsyncQueue<TEvent<K>>(opts.signal ? { signal: opts.signal } : {});
  const onEvent = (event: TEvent) => {
    if (event.data.userId === userId && (topics as readonly TTopic[]).includes(event.topic)) {
      if (filter(event as TEvent<K>)) queue.push(event as TEvent<K>);
    }
  };
  state.emitter.on("event", onEvent);
  try {
    const after = opts.lastEventId
      ? Number(opts.lastEventId)
      : opts.replayWithinMs
        ? Date.now() - opts.replayWithinMs - 1
        : Number.POSITIVE_INFINITY;
    const missed = newestPerTopic(userId, topics, filter)
      .filter((e) => Number(e.id) > after)
      .sort((a, b) => Number(a.id) - Number(b.id));
    for (const event of missed) yield event;
    yield* queue;
  } finally {
    state.emitter.off("event", onEvent);
    queue.end();
  }
}
