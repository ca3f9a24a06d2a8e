import { describe, expect, it } from "vitest";
import type { TFeedItem } from "@/contracts/feed-item";
import { EMPTY_ENHANCEMENT } from "@/server/enhancement/schema";
import { AGENDA_DAY_TYPE } from "@/server/feed/agenda/agenda-card";
import { mergeEnhancement } from "@/server/feed/merge-enhancement";
import { FRESH_CHANGE_MS, order, postProcess } from "@/server/feed/post-process";

/**
 * The feed's order (docs/feed.md, "Order"): the briefing pinned first, then the agenda (today first, the weather
 * right after today's card), then fresh material tracker changes, then the rest by score.
 */
const now = new Date("2026-12-06T23:00:00Z");
const ctx = { now, memoryWords: [] as string[] };
const ago = (ms: number) => new Date(now.getTime() - ms);
function item(id: string, over: Partial<TFeedItem> = {}): TFeedItem {
  return { id, sourceId: "s", type: "t", timestamp: now, data: {}, ...over };
}
const day = (d: string, today = false) =>
  item(`agenda:${d}`, {
    sourceId: "calendar",
    type: AGENDA_DAY_TYPE,
    data: { day: d, today },
    // Later days are "ambient": a score alone would put them under everything.
    signals: { urgency: today ? 0.5 : 0.3, timeRelevance: today ? "upcoming" : "ambient" },
  });
const change = (id: string, materiality: "material" | "notable", age: number) =>
  item(id, {
    sourceId: "trackers",
    type: "tracker-change",
    timestamp: ago(age),
    data: { trackerId: id, materiality },
    signals: { urgency: materiality === "material" ? 0.8 : 0.5, timeRelevance: "upcoming" },
  });
const weather = item("weather:35.68,139.69", {
  sourceId: "weather",
  type: "weather-current",
  signals: { urgency: 0.3, timeRelevance: "ambient" },
});
const ids = (items: TFeedItem[]) => items.map((i) => i.id);

describe("the feed's order", () => {
  const feed = [
    change("stale-material", "material", FRESH_CHANGE_MS + 60_000),
    day("2026-12-09"),
    item("quiet", { type: "trackers-quiet", signals: { urgency: 0.1, timeRelevance: "ambient" } }),
    change("fresh-notable", "notable", 3_600_000),
    weather,
    change("fresh-material", "material", 3_600_000),
    day("2026-12-08"),
    item("briefing:today", {
      sourceId: "briefing",
      type: "briefing",
      signals: { urgency: 0.1, timeRelevance: "ambient" },
    }),
    day("2026-12-07", true),
    item("weather-setup", { type: "weather-setup", signals: { urgency: 0.05, timeRelevance: "ambient" } }),
  ];

  it("briefing, agenda by day with the weather after today, fresh material changes, then the rest by score", () => {
    expect(ids(order(postProcess(feed, ctx), ctx))).toEqual([
      "briefing:today",
      "agenda:2026-12-07",
      "weather:35.68,139.69",
      "agenda:2026-12-08",
      "agenda:2026-12-09",
      "fresh-material",
      "stale-material",
      "fresh-notable",
      "quiet",
      "weather-setup",
    ]);
  });

  it("the same after the enhancement merge, whatever its ranking hints say about the tiers", () => {
    const hinted = {
      ...EMPTY_ENHANCEMENT,
      rankingHints: { "agenda:2026-12-09": 0.5, "fresh-notable": 0.5, "agenda:2026-12-07": -0.5 },
    };
    const merged = ids(mergeEnhancement(postProcess(feed, ctx), hinted, now));
    expect(merged.slice(0, 6)).toEqual([
      "briefing:today",
      "agenda:2026-12-07",
      "weather:35.68,139.69",
      "agenda:2026-12-08",
      "agenda:2026-12-09",
      "fresh-material",
    ]);
    // Within the rest, the hint still counts: the notable change moves above the stale material one.
    expect(merged.slice(6, 8)).toEqual(["fresh-notable", "stale-material"]);
  });

  it("a synthetic card the model calls a briefing is not pinned: it ranks with the rest", () => {
    const synthetic = item("synthetic:brief", {
      sourceId: "enhancement",
      type: "briefing",
      synthetic: true,
      score: 0.6,
    });
    const ordered = ids(order([...postProcess(feed, ctx), synthetic], ctx));
    expect(ordered[0]).toBe("briefing:today");
    expect(ordered.indexOf("synthetic:brief")).toBeGreaterThan(ordered.indexOf("fresh-material"));
  });

  it("without a card for today the weather leads the agenda; a loading calendar comes first", () => {
    const loading = item("calendar:loading", { sourceId: "calendar", type: "calendar-loading" });
    expect(ids(order(postProcess([day("2026-12-08"), weather, loading], ctx), ctx))).toEqual([
      "calendar:loading",
      "weather:35.68,139.69",
      "agenda:2026-12-08",
    ]);
  });
});
