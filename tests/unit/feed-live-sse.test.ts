import type { AddressInfo } from "node:net";
import { createTRPCClient, httpBatchStreamLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { createHTTPServer } from "@trpc/server/adapters/standalone";
import { EventSource } from "eventsource";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppRouter, appRouter } from "@/server/api/root";
import type { TTrpcContext } from "@/server/api/trpc";
import type { TDb } from "@/server/db";
import { detachedDefer } from "@/server/defer";
import { publish } from "@/server/events";
import { createLogger } from "@/server/logger";

/** feed.live over real HTTP + SSE with the browser's links: per-user events, tracked ids, resume after reconnect. */
const USER = "feed-sse-user";
const server = createHTTPServer({
  router: appRouter,
  createContext: (): TTrpcContext => ({
    db: {} as TDb, // without DATABASE_URL notifications stay in process and never touch the database
    user: { id: USER } as TTrpcContext["user"],
    log: createLogger({}, () => {}),
    requestId: "feed-sse-test",
    headers: new Headers(),
    defer: detachedDefer,
  }),
});
let url = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections?.();
  await new Promise((resolve) => server.close(resolve));
});

function client() {
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: httpSubscriptionLink({ url, transformer: superjson, EventSource }),
        false: httpBatchStreamLink({ url, transformer: superjson }),
      }),
    ],
  });
}

type TEvent = { id: string; data: { reason: string } };

function subscribe(input: { lastEventId?: string } | undefined, onStarted?: () => void) {
  const events: TEvent[] = [];
  let notify: (() => void) | null = null;
  const sub = client().feed.live.subscribe(input, {
    onStarted,
    onData: (e) => {
      events.push(e as TEvent);
      notify?.();
    },
  });
  const waitFor = (n: number) =>
    new Promise<TEvent[]>((resolve, reject) => {
      const check = () => (events.length >= n ? resolve(events) : undefined);
      notify = check;
      check();
      setTimeout(() => reject(new Error(`timed out with ${events.length} events`)), 5_000);
    });
  return { sub, events, waitFor };
}

describe("feed.live over SSE", () => {
  it("delivers this user's feed events with increasing tracked ids, and not other users'", async () => {
    let started!: () => void;
    const ready = new Promise<void>((r) => {
      started = r;
    });
    const s = subscribe(undefined, () => started());
    await ready;
    await new Promise((r) => setTimeout(r, 50)); // the generator attaches its listener right after start
    await publish({} as TDb, "tracker.changed", { userId: "someone-else", trackerId: "t", materiality: "material" });
    await publish({} as TDb, "tracker.changed", { userId: USER, trackerId: "t", materiality: "material" });
    await publish({} as TDb, "feed.changed", { userId: USER, reason: "enhanced" });
    const events = await s.waitFor(2);
    s.sub.unsubscribe();
    expect(events.map((e) => e.data.reason)).toEqual(["changed", "enhanced"]);
    expect(Number(events[1]?.id)).toBeGreaterThan(Number(events[0]?.id));
  });

  it("a reconnecting client with an older lastEventId gets the newest event it missed of each kind at once", async () => {
    await publish({} as TDb, "feed.changed", { userId: USER, reason: "enhanced" });
    const s = subscribe({ lastEventId: "1" });
    const missed = await s.waitFor(2);
    s.sub.unsubscribe();
    // The last tracker change (previous test) and the last feed change, oldest first.
    expect(missed.map((e) => e.data.reason)).toEqual(["changed", "enhanced"]);
  });
});
