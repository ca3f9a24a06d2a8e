import { describe, expect, it } from "vitest";
import type { TFeedItem } from "@/contracts/feed-item";
import { FeedEngine, FeedGraphError, type TFeedSource } from "@/server/feed/feed-engine";

const now = new Date("2026-11-29T12:00:00Z");
const item = (id: string): TFeedItem => ({ id, sourceId: "?", type: "t", timestamp: now, data: {} });

function source(id: string, deps: string[] = [], log: string[] = [], extra: Partial<TFeedSource> = {}): TFeedSource {
  return {
    id,
    dependencies: deps,
    fetchContext: async (ctx) => {
      log.push(id);
      return { from: id, saw: Object.keys(ctx.contexts).sort() };
    },
    fetchItems: async () => [item(`${id}-1`)],
    ...extra,
  };
}

describe("FeedEngine", () => {
  it("runs fetchContext in topological order whatever the registration order", async () => {
    const log: string[] = [];
    const engine = new FeedEngine()
      .register(source("weather", ["location"], log))
      .register(source("briefing", ["weather", "calendar"], log))
      .register(source("calendar", [], log))
      .register(source("location", [], log));
    const result = await engine.run({ userId: "u", now, env: undefined });
    expect(log.indexOf("location")).toBeLessThan(log.indexOf("weather"));
    expect(log.indexOf("weather")).toBeLessThan(log.indexOf("briefing"));
    expect(log.indexOf("calendar")).toBeLessThan(log.indexOf("briefing"));
    expect(result.contexts.weather).toEqual({ from: "weather", saw: ["calendar", "location"] });
    expect(result.items.map((i) => i.id).sort()).toEqual(["briefing-1", "calendar-1", "location-1", "weather-1"]);
    expect(result.items.find((i) => i.id === "weather-1")?.sourceId).toBe("weather");
    expect(result.errors).toEqual([]);
  });

  it("rejects a missing dependency with a clear error", async () => {
    const engine = new FeedEngine().register(source("weather", ["location"]));
    expect(() => engine.order()).toThrow(FeedGraphError);
    expect(() => engine.order()).toThrow('Feed source "weather" depends on "location", which is not registered.');
    await expect(engine.run({ userId: "u", now, env: undefined })).rejects.toThrow(/not registered/);
  });

  it("rejects a cycle and names the sources in it", () => {
    const engine = new FeedEngine()
      .register(source("a", ["c"]))
      .register(source("b", ["a"]))
      .register(source("c", ["b"]))
      .register(source("free"));
    expect(() => engine.order()).toThrow(/dependency cycle: a, b, c/);
  });

  it("rejects the same id twice", () => {
    const engine = new FeedEngine().register(source("a")).register(source("a"));
    expect(() => engine.order()).toThrow(/registered twice/);
  });

  it("a failing source does not break the others; its dependants are skipped with a reason", async () => {
    const engine = new FeedEngine()
      .register(
        source("calendar", [], [], {
          fetchItems: async () => {
            throw new Error("Calendar: HTTP 500");
          },
        }),
      )
      .register(
        source("location", [], [], {
          fetchContext: async () => {
            throw new Error("no place");
          },
        }),
      )
      .register(source("weather", ["location"]))
      .register(source("trackers"));
    const result = await engine.run({ userId: "u", now, env: undefined });
    expect(result.items.map((i) => i.id)).toEqual(["trackers-1"]);
    expect(result.errors).toEqual(
      expect.arrayContaining([
        { sourceId: "calendar", message: "Calendar: HTTP 500" },
        { sourceId: "location", message: "no place" },
        { sourceId: "weather", message: 'Skipped because "location" failed.' },
      ]),
    );
    expect(result.errors).toHaveLength(3);
  });

  it("a source can report a problem and still return items (e.g. a stale calendar copy)", async () => {
    const engine = new FeedEngine()
      .register(
        source("calendar", [], [], {
          fetchItems: async ({ reportError }) => {
            reportError("Could not refresh; showing the copy from 10:00.");
            return [item("event-1")];
          },
        }),
      )
      .register(source("trackers"));
    const result = await engine.run({ userId: "u", now, env: undefined });
    expect(result.items.map((i) => i.id).sort()).toEqual(["event-1", "trackers-1"]);
    expect(result.errors).toEqual([
      { sourceId: "calendar", message: "Could not refresh; showing the copy from 10:00." },
    ]);
  });
});
