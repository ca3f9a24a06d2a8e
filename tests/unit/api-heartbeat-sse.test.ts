import type { AddressInfo } from "node:net";
import { createTRPCClient, httpBatchStreamLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { createHTTPServer } from "@trpc/server/adapters/standalone";
import { EventSource } from "eventsource";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppRouter, appRouter } from "../../server/api/root";
import type { TTrpcContext } from "../../server/api/trpc";
import type { TDb } from "../../server/db";
import { detachedDefer } from "../../server/defer";
import { createLogger } from "../../server/logger";
import { heartbeats } from "../../server/system/heartbeat";

/** The real router over real HTTP + SSE, with the same links the browser uses (EventSource from the package). */

const server = createHTTPServer({
  router: appRouter,
  createContext: (): TTrpcContext => ({
    db: {} as TDb, // the heartbeat never touches it
    user: { id: "sse-user", name: "Sam", email: "sam@example.com", role: "member" }, // subscriptions need a session
    log: createLogger({}, () => {}),
    requestId: "sse-test",
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

function collect(count: number, input: { intervalMs: number; lastEventId?: string }) {
  return new Promise<{ id: string; data: { seq: number; at: Date } }[]>((resolve, reject) => {
    const events: { id: string; data: { seq: number; at: Date } }[] = [];
    const sub = client().system.heartbeat.subscribe(input, {
      onData: (event) => {
        events.push(event);
        if (events.length === count) {
          sub.unsubscribe();
          resolve(events);
        }
      },
      onError: reject,
    });
    setTimeout(() => {
      sub.unsubscribe();
      reject(new Error(`timed out after ${events.length} events`));
    }, 5_000);
  });
}

describe("system.heartbeat over SSE", () => {
  it("streams tracked, numbered ticks with superjson-typed data", async () => {
    const events = await collect(3, { intervalMs: 100 });
    expect(events.map((e) => e.id)).toEqual(["1", "2", "3"]);
    expect(events.map((e) => e.data.seq)).toEqual([1, 2, 3]);
    expect(events[0]?.data.at).toBeInstanceOf(Date);
  });

  it("resumes numbering after the last event id a reconnecting client sends", async () => {
    const events = await collect(2, { intervalMs: 100, lastEventId: "41" });
    expect(events.map((e) => e.id)).toEqual(["42", "43"]);
  });

  it("queries still work through the batch-stream link alongside", async () => {
    const status = await client().system.status.query();
    expect(status.ai.label).toBeTypeOf("string");
  });
});

describe("heartbeats()", () => {
  it("stops when the signal aborts", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    for await (const beat of heartbeats({ intervalMs: 10, signal: controller.signal })) {
      seen.push(beat.seq);
      if (beat.seq === 3) controller.abort();
    }
    expect(seen).toEqual([1, 2, 3]);
  });
});
