import { afterEach, describe, expect, it, vi } from "vitest";
import { createRequestDefer } from "@/server/api/request-defer";
import type { TDb } from "@/server/db";
import { detachedDefer, pendingDeferred, settleDeferred } from "@/server/defer";
import { publish } from "@/server/events";
import { FRESH_SUBSCRIBER_REPLAY_MS, feedEvents } from "@/server/feed/feed-events";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("defer outside a request scope (tests, scripts)", () => {
  it("runs the task detached and tracked: the caller returns first, settleDeferred waits for it", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const done: string[] = [];
    // Next's after() throws outside a request; the API layer's defer falls back to the tracked promise.
    createRequestDefer()(async () => {
      await gate;
      done.push("task");
    });
    done.push("caller");
    expect(pendingDeferred()).toBe(1);
    release();
    await settleDeferred();
    expect(done).toEqual(["caller", "task"]);
    expect(pendingDeferred()).toBe(0);
  });

  it("a failing task is logged, not thrown, and tasks it starts are awaited too", async () => {
    const done: string[] = [];
    detachedDefer(async () => {
      detachedDefer(async () => {
        done.push("child");
      });
      throw new Error("boom");
    });
    await settleDeferred();
    expect(done).toEqual(["child"]);
  });
});

describe("feed events for a page that subscribes just after its load", () => {
  it("replays the user's latest event if it is recent, not if it is old", async () => {
    const db = {} as TDb; // no DATABASE_URL: in-process only
    await publish(db, "feed.changed", { userId: "fresh-user", reason: "calendar" });
    const controller = new AbortController();
    const first = await feedEvents("fresh-user", { signal: controller.signal }).next();
    expect(first.value).toMatchObject({ userId: "fresh-user", reason: "calendar" });
    controller.abort();

    await publish(db, "feed.changed", { userId: "stale-user", reason: "calendar" });
    vi.spyOn(Date, "now").mockReturnValue(Date.now() + FRESH_SUBSCRIBER_REPLAY_MS + 1_000);
    const later = new AbortController();
    const events = feedEvents("stale-user", { signal: later.signal });
    const next = events.next();
    await publish(db, "tracker.changed", { userId: "stale-user", trackerId: "t", materiality: "material" });
    expect((await next).value).toMatchObject({ reason: "changed" }); // the old event was not replayed
    later.abort();
  });
});
