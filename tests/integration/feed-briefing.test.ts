import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TFeedItem } from "@/contracts/feed-item";
import { getFeed } from "@/server/feed/get-feed";
import {
  EARLIER_SHOWN,
  MAX_TRACKER_CARDS,
  RECENT_CHANGES_PER_TRACKER,
  trackersSource,
} from "@/server/feed/sources/trackers-source";
import { recordFeedView } from "@/server/settings/feed-seen";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker } from "../helpers/trackers";

/**
 * The feed as a briefing (docs/feed.md, "A briefing, one card per decision"): one card per decision however many changes it recorded, in people's
 * units, with a bounded number of cards and of folded changes; "new since you last looked" per visit.
 */

const NOW = new Date("2026-11-29T15:00:00Z");
const MIN = 60_000;
let t: TTestDb;
let userId: string;

const DEFINITION = {
  fields: [
    { name: "price", type: "money", currency: "USD", description: "Price", extractor: { kind: "css", selector: "#p" } },
    { name: "units_left", type: "integer", description: "Units", extractor: { kind: "css", selector: "#u" } },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.01 } },
};

async function trackerWithChanges(decision: string, count: number, opts: { start?: Date; stepMs?: number } = {}) {
  const { tracker } = await createActiveTracker(t.db, {
    userId,
    decision,
    capability: "web.scrape",
    capabilityInput: { url: "https://shop.example/widget" },
    definition: DEFINITION,
  });
  // One run per change (a run records at most one change per entity).
  const runs = await t.db.refreshRun.createManyAndReturn({
    data: Array.from({ length: count }, () => ({
      trackerId: tracker.id,
      trigger: "cron" as const,
      status: "completed" as const,
    })),
    select: { id: true },
  });
  const entity = await t.db.trackedEntity.create({ data: { trackerId: tracker.id, entityKey: "widget" } });
  const start = opts.start ?? NOW;
  const step = opts.stepMs ?? MIN;
  // Oldest first: the i-th change moves the price from 40 + i to 40 + i + 0.5 and units down by one.
  await t.db.entityChange.createMany({
    data: Array.from({ length: count }, (_, i) => ({
      entityId: entity.id,
      trackerId: tracker.id,
      runId: (runs[i] as { id: string }).id,
      capturedAt: new Date(start.getTime() - (count - i) * step),
      delta: {
        price: { from: { amount: 40 + i, currency: "USD" }, to: { amount: 40.5 + i, currency: "USD" } },
        units_left: { from: 200 - i, to: 199 - i },
      },
      decisions: { price: { verdict: "material", decidedBy: "code", reason: "moved" } },
      materiality: i % 3 === 0 ? ("notable" as const) : ("material" as const),
      definitionVersion: 1,
    })),
  });
  return tracker;
}

async function cards(seenSince: Date | null = null): Promise<TFeedItem[]> {
  const items = await trackersSource(t.db, { seenSince }).fetchItems({
    userId,
    now: NOW,
    env: undefined,
    contexts: {},
    reportError: () => {},
  });
  return items.filter((i) => i.type === "tracker-change");
}

const elementsOf = (item: TFeedItem, type: string) =>
  Object.values(item.ui?.elements ?? {}).filter((e) => e.type === type);

beforeAll(async () => {
  t = await createTestDb();
  userId = (await ensureLocalUser(t.db)).id;
});

afterAll(async () => {
  await t?.close();
});

describe("one card per decision, bounded", () => {
  it("no tracker yet: one invitation to create the first", async () => {
    const items = await trackersSource(t.db).fetchItems({
      userId,
      now: NOW,
      env: undefined,
      contexts: {},
      reportError: () => {},
    });
    expect(items.map((i) => i.type)).toEqual(["trackers-start"]);
    expect(elementsOf(items[0] as TFeedItem, "Link")[0]?.props.href).toBe("/trackers/new");
  });

  it("100 recorded changes are one card: the latest change in people's units, a sparkline, n earlier", async () => {
    const widget = await trackerWithChanges("Should we restock the widget?", 100);
    const [card, ...others] = await cards();
    expect(others).toHaveLength(0);
    expect(card?.data.trackerId).toBe(widget.id);
    // The latest change (i = 99): $139.00 → $139.50, units 101 → 100.
    const rows = elementsOf(card as TFeedItem, "ChangeRow").map((e) => e.props);
    expect(rows).toEqual([
      { field: "Price", from: "$139.00", to: "$139.50", change: "+0.4%" },
      { field: "Units left", from: "101", to: "100", change: "−1%" },
    ]);
    const text = JSON.stringify(card);
    expect(text).not.toContain('"amount"');
    expect(text).not.toContain("units_left");
    const [spark] = elementsOf(card as TFeedItem, "Sparkline");
    // The main numeric field is the definition's first (price): the oldest read change's "from", then each "to".
    expect(spark?.props.values).toHaveLength(RECENT_CHANGES_PER_TRACKER + 1);
    expect(((spark?.props.values ?? []) as number[]).at(-1)).toBe(139.5);
    const [earlier] = elementsOf(card as TFeedItem, "Earlier");
    expect(earlier?.props.total).toBe(99);
    expect(earlier?.props.entries).toHaveLength(EARLIER_SHOWN);
    expect(earlier?.props.href).toBe(`/trackers/${widget.id}`);
    expect(((earlier?.props.entries ?? []) as { text: string }[])[0]?.text).toBe(
      "Price: $138.00 → $138.50 (+0.4%); Units left: 102 → 101 (−1%)",
    );
    // No raw JSON and no relative time in what the model reads (the enhancement cache hashes it).
    expect(card?.data.changes).toEqual([
      { field: "Price", from: "$139.00", to: "$139.50", change: "+0.4%" },
      { field: "Units left", from: "101", to: "100", change: "−1%" },
    ]);
  });

  it("changes older than the lookback are not counted; at most MAX_TRACKER_CARDS cards, newest first", async () => {
    await trackerWithChanges("An old decision", 5, { start: new Date(NOW.getTime() - 40 * 86_400_000) });
    for (let i = 0; i < MAX_TRACKER_CARDS + 5; i++) {
      await trackerWithChanges(`Decision ${i}`, 2, { start: new Date(NOW.getTime() - (i + 200) * MIN) });
    }
    const all = await cards();
    expect(all).toHaveLength(MAX_TRACKER_CARDS);
    expect(new Set(all.map((c) => c.data.trackerId)).size).toBe(MAX_TRACKER_CARDS);
    expect(all.some((c) => c.data.decision === "An old decision")).toBe(false);
    const times = all.map((c) => c.timestamp.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(all[0]?.data.decision).toBe("Should we restock the widget?");
  });
});

describe("new since you last looked", () => {
  it("a visit's threshold is the previous visit's last view and holds for the whole visit", async () => {
    const other = (await t.db.user.create({ data: { email: "seen@example.test", name: "Seen" } })).id;
    const at = (minutes: number) => new Date(NOW.getTime() + minutes * MIN);
    const gap = 30;
    const view = (minutes: number) => recordFeedView(t.db, other, { now: at(minutes), visitGapMs: gap * MIN });
    expect((await view(0)).since).toBeNull(); // first visit: nothing to compare with
    expect((await view(10)).since).toBeNull(); // same visit
    expect((await view(10 + gap + 1)).since).toEqual(at(10)); // a new visit: new is what came after the last one
    expect((await view(10 + gap + 20)).since).toEqual(at(10)); // stable while reading
    expect((await view(5)).since).toEqual(at(10)); // a late request moves nothing
    expect((await view(200)).since).toEqual(at(10 + gap + 20));
  });

  it("the card marks the changes newer than the threshold, in the UI only", async () => {
    const seenSince = new Date(NOW.getTime() - 3.5 * MIN); // the widget's last three changes are newer
    const widget = (await cards(seenSince)).find((c) => c.data.decision === "Should we restock the widget?");
    const [marker] = elementsOf(widget as TFeedItem, "NewMarker");
    expect(marker?.props.label).toBe("3 new since you last looked");
    const entries = elementsOf(widget as TFeedItem, "Earlier")[0]?.props.entries as { isNew: boolean }[];
    expect(entries.map((e) => e.isNew)).toEqual([true, true, false, false, false]);
    const unmarked = (await cards(NOW)).find((c) => c.data.decision === "Should we restock the widget?");
    expect(elementsOf(unmarked as TFeedItem, "NewMarker")).toHaveLength(0);
    expect(unmarked?.data).toEqual(widget?.data);
  });

  it("getFeed: the first view marks nothing, a later visit marks what arrived in between", async () => {
    const viewer = await t.db.user.create({ data: { email: "viewer@example.test", name: "Viewer" } });
    const { tracker } = await createActiveTracker(t.db, {
      userId: viewer.id,
      decision: "Is the venue still cheaper?",
      capability: "web.scrape",
      capabilityInput: { url: "https://venue.example" },
      definition: DEFINITION,
    });
    const entity = await t.db.trackedEntity.create({ data: { trackerId: tracker.id, entityKey: "venue" } });
    const change = async (minutes: number) =>
      t.db.entityChange.create({
        data: {
          entityId: entity.id,
          trackerId: tracker.id,
          runId: (
            await t.db.refreshRun.create({ data: { trackerId: tracker.id, trigger: "cron", status: "completed" } })
          ).id,
          capturedAt: new Date(NOW.getTime() + minutes * MIN),
          delta: { price: { from: { amount: 50, currency: "EUR" }, to: { amount: 45, currency: "EUR" } } },
          decisions: {},
          materiality: "material",
          definitionVersion: 1,
        },
      });
    const markers = async (minutes: number) => {
      const feed = await getFeed(t.db, viewer.id, {
        now: new Date(NOW.getTime() + minutes * MIN),
        touch: true,
        enhance: false,
      });
      const card = feed.items.find((i) => i.type === "tracker-change");
      return card ? elementsOf(card, "NewMarker").map((e) => e.props.label) : null;
    };
    await change(-5);
    expect(await markers(0)).toEqual([]);
    await change(120);
    expect(await markers(180)).toEqual(["New since you last looked"]);
    expect(await markers(190)).toEqual(["New since you last looked"]); // a reload within the visit
    expect(await markers(400)).toEqual([]); // the next visit: already seen
  });
});
