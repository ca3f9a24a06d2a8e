import { describe, expect, it } from "vitest";
import type { TFeedItem } from "@/contracts/feed-item";
import { EMPTY_ENHANCEMENT } from "@/server/enhancement/schema";
import { AGENDA_DAY_TYPE } from "@/server/feed/agenda/agenda-card";
import { mergeEnhancement } from "@/server/feed/merge-enhancement";
import { DEFAULT_POST_PROCESSORS, dedup, group, memoryWords, order, postProcess } from "@/server/feed/post-process";

const now = new Date("2026-11-29T15:00:00Z");
function item(id: string, over: Partial<TFeedItem> = {}): TFeedItem {
  return { id, sourceId: "s", type: "t", timestamp: now, data: {}, ...over };
}
const ctx = { now, memoryWords: [] as string[] };
const ids = (items: TFeedItem[]) => items.map((i) => i.id);

describe("feed post-processors", () => {
  it("orders by urgency and time relevance, newest first on ties", () => {
    const items = postProcess(
      [
        item("ambient", { signals: { urgency: 0.2, timeRelevance: "ambient" } }),
        item("imminent", { signals: { urgency: 0.3, timeRelevance: "imminent" } }),
        item("urgent", { signals: { urgency: 0.9, timeRelevance: "ambient" } }),
        item("old", { timestamp: new Date(now.getTime() - 60_000) }),
        item("new"),
      ],
      ctx,
    );
    expect(ids(order(items, ctx))).toEqual(["urgent", "imminent", "new", "old", "ambient"]);
  });

  it("dedup keeps the newest copy of an id", () => {
    const out = dedup(
      [item("a", { data: { v: 1 } }), item("a", { data: { v: 2 }, timestamp: new Date(now.getTime() + 1) })],
      ctx,
    );
    expect(out).toHaveLength(1);
    expect(out[0]?.data).toEqual({ v: 2 });
  });

  it("groups several items of one tracker and keeps them together at the best member's position", () => {
    const items = postProcess(
      [
        item("t1-a", { data: { trackerId: "t1" }, signals: { urgency: 0.9, timeRelevance: "ambient" } }),
        item("other", { signals: { urgency: 0.5, timeRelevance: "ambient" } }),
        item("t1-b", { data: { trackerId: "t1" }, signals: { urgency: 0.1, timeRelevance: "ambient" } }),
        item("t2-a", { data: { trackerId: "t2" } }),
      ],
      ctx,
    );
    const grouped = group(items, ctx);
    expect(grouped.find((i) => i.id === "t1-a")?.groupKey).toBe("tracker:t1");
    expect(grouped.find((i) => i.id === "t2-a")?.groupKey).toBeUndefined(); // a group of one is no group
    expect(ids(order(grouped, ctx))).toEqual(["t1-a", "t1-b", "other", "t2-a"]);
  });

  it("affinity boosts items that mention the user's memory notes", () => {
    const items = postProcess(
      [item("plain", { data: { text: "something" } }), item("bike", { data: { text: "Cycling lane closed" } })],
      { now, memoryWords: memoryWords("I go cycling to work") },
    );
    expect(ids(order(items, ctx))).toEqual(["bike", "plain"]);
  });

  it("affinity reads the data's text, nested too, case-insensitively; not its keys", () => {
    const words = memoryWords("Pricing and cycling");
    const [nested, key, none] = postProcess(
      [
        item("nested", { data: { changes: [{ field: "Price", summary: "PRICING page moved" }] } }),
        item("key", { data: { pricing: 1 } }),
        item("none", { data: { text: "nothing here", n: 42 } }),
      ],
      { now, memoryWords: words },
    );
    const plain = postProcess([item("p", {})], { now, memoryWords: [] })[0]?.score ?? 0;
    expect(nested?.score).toBeCloseTo(plain + 0.15);
    expect(key?.score).toBeCloseTo(plain);
    expect(none?.score).toBeCloseTo(plain);
  });

  it("the default list runs as one pass that gives exactly what its processors give one after another", () => {
    const morning = new Date("2026-11-29T07:00:00");
    const items = [
      item("w", { type: "weather-current", signals: { urgency: 0.4, timeRelevance: "ambient" } }),
      item("today", { type: AGENDA_DAY_TYPE, data: { day: "2026-11-29", events: [{ startsSoon: true }] } }),
      item("tomorrow", { type: AGENDA_DAY_TYPE, data: { day: "2026-11-30", events: [] } }),
      item("t1-a", {
        data: { trackerId: "t1", note: "Cycling lane" },
        signals: { urgency: 0.9, timeRelevance: "imminent" },
      }),
      item("t1-b", { data: { trackerId: "t1" }, signals: { urgency: 0.1, timeRelevance: "upcoming" } }),
      item("alone", { data: { trackerId: "t2" }, score: 3 }),
      item("kept-key", { groupKey: "mine", data: { trackerId: "t1" } }),
      item("dup", { data: { v: 1 } }),
      item("dup", { data: { v: 2, text: "pricing" }, timestamp: new Date(now.getTime() + 1) }),
    ];
    for (const words of [[], memoryWords("cycling and pricing notes")]) {
      const ctx2 = { now: morning, memoryWords: words };
      const onePass = postProcess(items, ctx2);
      expect(onePass).toEqual(postProcess(items, ctx2, [...DEFAULT_POST_PROCESSORS]));
      expect(onePass.map((i) => Object.keys(i))).toEqual(
        postProcess(items, ctx2, [...DEFAULT_POST_PROCESSORS]).map((i) => Object.keys(i)),
      );
    }
    // The weather is boosted in the morning only; the agenda's days are placed by day, not scored by their events.
    const scoreOf = (at: Date, id: string) =>
      postProcess(items, { now: at, memoryWords: [] }).find((i) => i.id === id)?.score ?? Number.NaN;
    const evening = new Date("2026-11-29T20:00:00");
    expect(scoreOf(morning, "w") - scoreOf(evening, "w")).toBeCloseTo(0.2);
    expect(scoreOf(morning, "today")).toBeCloseTo(scoreOf(morning, "tomorrow"));
  });

  it("merge: suppress removes, ranking hints boost, slot fills only known slots, synthetic items appended", () => {
    const items = postProcess(
      [
        item("a", { slots: { why: { description: "d", content: null } } }),
        item("b"),
        item("c", { signals: { urgency: 0.9, timeRelevance: "ambient" } }),
      ],
      ctx,
    );
    const merged = mergeEnhancement(
      items,
      {
        slotFills: { a: { why: "Because.", nope: "dropped" }, ghost: { why: "x" } },
        syntheticItems: [
          {
            id: "synthetic:brief",
            type: "briefing",
            ui: { root: "r", elements: { r: { type: "Text", props: { text: "hi" }, children: [] } } },
          },
        ],
        suppress: ["c"],
        rankingHints: { b: 1 },
      },
      now,
    );
    expect(ids(merged)).toEqual(["b", "synthetic:brief", "a"]);
    const a = merged.find((i) => i.id === "a");
    expect(a?.slots).toEqual({ why: { description: "d", content: "Because." } });
    expect(merged.find((i) => i.id === "synthetic:brief")?.synthetic).toBe(true);
  });

  it("a synthetic item never replaces a card, nor a synthetic item of the same id", () => {
    const ui = { root: "r", elements: { r: { type: "Text", props: { text: "hi" }, children: [] } } };
    const merged = mergeEnhancement(
      [item("a"), item("b")],
      {
        ...EMPTY_ENHANCEMENT,
        syntheticItems: [
          { id: "b", type: "briefing", ui },
          { id: "synthetic:x", type: "briefing", ui },
          { id: "synthetic:x", type: "other", ui },
        ],
      },
      now,
    );
    expect(ids(merged).sort()).toEqual(["a", "b", "synthetic:x"]);
    expect(merged.find((i) => i.id === "b")?.synthetic).toBeUndefined();
    expect(merged.find((i) => i.id === "synthetic:x")?.type).toBe("briefing");
  });

  it("merging an empty enhancement leaves slots empty", () => {
    const merged = mergeEnhancement(
      [item("a", { slots: { why: { description: "d", content: null } } })],
      EMPTY_ENHANCEMENT,
      now,
    );
    expect(merged[0]?.slots?.why?.content).toBeNull();
  });
});
