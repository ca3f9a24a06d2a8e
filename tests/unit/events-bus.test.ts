import { describe, expect, it } from "vitest";
import type { TDb } from "@/server/db";
import { createAsyncQueue, prepareEvent, publish, subscribe } from "@/server/events";

// Without DATABASE_URL events stay in process and never touch the database.
const db = {} as TDb;

describe("createAsyncQueue", () => {
  it("delivers pushed values in order, then ends", async () => {
    const q = createAsyncQueue<number>();
    q.push(1);
    setTimeout(() => {
      q.push(2);
      q.end();
    }, 5);
    const seen: number[] = [];
    for await (const v of q) seen.push(v);
    expect(seen).toEqual([1, 2]);
  });

  it("rethrows the error it ended with after the buffered values", async () => {
    const q = createAsyncQueue<string>();
    q.push("a");
    q.end(new Error("boom"));
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const v of q) seen.push(v);
      })(),
    ).rejects.toThrow("boom");
    expect(seen).toEqual(["a"]);
  });

  it("ends when the signal aborts and drops what comes after", async () => {
    const controller = new AbortController();
    const q = createAsyncQueue<number>({ signal: controller.signal });
    const done = (async () => {
      const seen: number[] = [];
      for await (const v of q) seen.push(v);
      return seen;
    })();
    q.push(1);
    await new Promise((r) => setTimeout(r, 1));
    controller.abort();
    q.push(2);
    expect(await done).toEqual([1]);
  });

  it("keeps at most maxBuffered values for a consumer that stopped reading", async () => {
    const q = createAsyncQueue<number>({ maxBuffered: 3 });
    for (let i = 0; i < 10; i++) q.push(i);
    q.end();
    const seen: number[] = [];
    for await (const v of q) seen.push(v);
    expect(seen).toEqual([7, 8, 9]);
  });
});

describe("event bus (in process)", () => {
  it("delivers a user's events of the subscribed topics only", async () => {
    const controller = new AbortController();
    const events = subscribe("bus-user-1", ["tracker.changed"], { signal: controller.signal });
    const next = events.next();
    await publish(db, "feed.changed", { userId: "bus-user-1", reason: "settings" }); // other topic
    await publish(db, "tracker.changed", { userId: "bus-user-2", trackerId: "t0", materiality: "material" }); // other user
    await publish(db, "tracker.changed", { userId: "bus-user-1", trackerId: "t1", materiality: "material" });
    const got = await next;
    controller.abort();
    expect(got.value).toMatchObject({
      topic: "tracker.changed",
      data: { userId: "bus-user-1", trackerId: "t1", materiality: "material" },
    });
  });

  it("replays the newest missed event per topic to a subscriber that resumes with an older id", async () => {
    await publish(db, "feed.changed", { userId: "bus-user-3", reason: "settings" });
    const controller = new AbortController();
    const first = await subscribe("bus-user-3", ["feed.changed"], {
      lastEventId: "0",
      signal: controller.signal,
    }).next();
    controller.abort();
    expect(first.value).toMatchObject({ topic: "feed.changed", data: { reason: "settings" } });

    const up = new AbortController();
    const current = subscribe("bus-user-3", ["feed.changed"], {
      lastEventId: (first.value as { id: string }).id,
      signal: up.signal,
    });
    const pending = current.next();
    await publish(db, "feed.changed", { userId: "bus-user-3", reason: "enhanced" });
    expect((await pending).value).toMatchObject({ data: { reason: "enhanced" } }); // not the old one again
    up.abort();
  });

  it("replays per tracker: a subscriber of one tracker gets its newest event though another tracker's is newer", async () => {
    await publish(db, "tracker.checked", {
      userId: "bus-user-4",
      trackerId: "mine",
      runId: "r4a",
      outcome: "unchanged",
    });
    await publish(db, "tracker.checked", {
      userId: "bus-user-4",
      trackerId: "other",
      runId: "r4b",
      outcome: "material",
    });
    const controller = new AbortController();
    const first = await subscribe("bus-user-4", ["tracker.checked"], {
      lastEventId: "0",
      signal: controller.signal,
      filter: (e) => e.data.trackerId === "mine",
    }).next();
    controller.abort();
    expect(first.value).toMatchObject({ data: { trackerId: "mine", outcome: "unchanged" } });
  });

  it("a prepared event has no NOTIFY without PostgreSQL and reaches subscribers only when delivered", async () => {
    const controller = new AbortController();
    const events = subscribe("bus-user-5", ["tracker.checked"], { signal: controller.signal });
    const pending = events.next();
    const prepared = prepareEvent("tracker.checked", {
      userId: "bus-user-5",
      trackerId: "t5",
      runId: "r5",
      outcome: "failed",
    });
    expect(prepared.notify).toBeNull();
    const early = await Promise.race([
      pending.then(() => "delivered"),
      new Promise((r) => setTimeout(r, 20, "not yet")),
    ]);
    expect(early).toBe("not yet");
    prepared.deliverHere();
    expect((await pending).value).toEqual(prepared.event);
    controller.abort();
  });
});
