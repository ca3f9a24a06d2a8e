import { describe, expect, it } from "vitest";
import { validateFeedSpec } from "@/contracts/feed-catalog";
import { clampBriefingText } from "@/server/enhancement/briefing-text";
import type { THarnessInput } from "@/server/enhancement/build-input";
import { normaliseEnhancement } from "@/server/enhancement/normalise-enhancement";
import { briefingItem } from "@/server/feed/briefing/briefing-card";
import { buildBriefing, type TBriefingChange, type TBriefingEvent } from "@/server/feed/briefing/build-briefing";
import { describeBriefingChange } from "@/server/feed/briefing/read-briefing-inputs";

/**
 * The rules-mode briefing from fixed inputs (docs/feed.md, "The briefing card"): exact text, singular and plural,
 * the quiet line, today's events in the person's time zone, and a card whose id follows its content.
 */

// Saturday 5 December 2026, 23:30 UTC: already Sunday 6 December, 12:30, in Auckland (UTC+13).
const NOW = new Date("2026-12-05T23:30:00Z");
const NONE = { total: 0, trackerCount: 0, trackers: [] };
const acme: TBriefingChange = { trackerId: "t1", subject: "Acme Pro", what: "price −10%", count: 1 };
const rival: TBriefingChange = { trackerId: "t2", subject: "Rival shop", what: "2 new products", count: 3 };
const olive: TBriefingChange = { trackerId: "t3", subject: "Cafe Olive", what: "rating 4.4 → 4.1", count: 1 };
const timed = (title: string, iso: string): TBriefingEvent => ({
  title,
  allDay: false,
  start: new Date(iso),
  end: null,
});

const lines = (input: Partial<Parameters<typeof buildBriefing>[0]>) =>
  buildBriefing({ now: NOW, zone: "UTC", changes: NONE, events: null, ...input }).lines;

describe("the changes line", () => {
  it("no material change: a quiet line, and no events line without a calendar", () => {
    expect(lines({})).toEqual(["No material changes since yesterday"]);
  });

  it("one change, singular; several, plural, two named and the rest counted", () => {
    expect(lines({ changes: { total: 1, trackerCount: 1, trackers: [acme] } })).toEqual([
      "1 material change since yesterday — Acme Pro: price −10%",
    ]);
    expect(lines({ changes: { total: 5, trackerCount: 3, trackers: [acme, rival, olive] } })).toEqual([
      "5 material changes since yesterday — Acme Pro: price −10%, Rival shop: 2 new products (3 changes) and 1 more",
    ]);
    expect(lines({ changes: { total: 4, trackerCount: 2, trackers: [rival, acme] } })[0]).toBe(
      "4 material changes since yesterday — Rival shop: 2 new products (3 changes), Acme Pro: price −10%",
    );
  });
});

describe("the events line, in the person's time zone", () => {
  const events = [
    timed("Stand-up", "2026-12-05T20:30:00Z"), // 09:30 Sunday in Auckland; 20:30 Saturday in UTC (already past)
    timed("Lunch", "2026-12-06T00:15:00Z"), // 13:15 Sunday in Auckland
    timed("Review", "2026-12-06T03:00:00Z"), // 16:00 Sunday in Auckland; Sunday in UTC too (tomorrow there)
    timed("Yesterday's", "2026-12-04T22:00:00Z"), // Saturday 11:00 in Auckland
    { title: "Holiday", allDay: true, start: new Date("2026-12-05T11:00:00Z"), end: null }, // Sunday in Auckland
  ];

  it("dated and counted in Auckland: Sunday 6 December; before the first event, 'first at' its time", () => {
    const early = new Date("2026-12-05T19:00:00Z"); // 08:00 Sunday in Auckland
    const b = buildBriefing({ now: early, zone: "Pacific/Auckland", changes: NONE, events });
    expect(b.date).toBe("Sunday 6 December");
    expect(b.day).toBe("2026-12-06");
    expect(b.lines).toEqual(["No material changes since yesterday", "4 events today (1 all day), first at 9:30"]);
  });

  it("after the first has begun: 'more' and 'next at'; after the last: none more", () => {
    const b = buildBriefing({ now: NOW, zone: "Pacific/Auckland", changes: NONE, events });
    expect(b.lines[1]).toBe("2 more events today, next at 13:15");
    const late = buildBriefing({
      now: new Date("2026-12-06T05:00:00Z"),
      zone: "Pacific/Auckland",
      changes: NONE,
      events,
    });
    expect(late.lines[1]).toBe("No more events today");
  });

  it("the same instant in UTC is Saturday 5 December: its one event has passed", () => {
    const b = buildBriefing({ now: NOW, zone: "UTC", changes: NONE, events });
    expect(b.date).toBe("Saturday 5 December");
    expect(b.lines[1]).toBe("No more events today");
  });

  it("no events today vs one; an all-day day alone", () => {
    expect(lines({ events: [] })).toEqual(["No material changes since yesterday", "No events today"]);
    expect(lines({ events: [timed("Tomorrow", "2026-12-06T09:00:00Z")] })[1]).toBe("No events today");
    expect(lines({ events: [timed("Dinner", "2026-12-05T23:45:00Z")] })[1]).toBe("1 event today, first at 23:45");
    const trip = {
      title: "Trip",
      allDay: true,
      start: new Date("2026-12-04T00:00:00Z"),
      end: new Date("2026-12-07T00:00:00Z"),
    };
    expect(lines({ events: [trip] })[1]).toBe("1 all-day event today");
  });
});

describe("the card", () => {
  const input = {
    now: NOW,
    zone: "Europe/London",
    changes: { total: 1, trackerCount: 1, trackers: [acme] },
    events: [],
  };

  it("dated, two lines at most, a valid spec with the briefing slot; the same inputs give the same card", () => {
    const card = briefingItem(buildBriefing(input), NOW);
    expect(card.type).toBe("briefing");
    expect(validateFeedSpec(card.ui)).toMatchObject({ ok: true });
    const elements = Object.values(card.ui?.elements ?? {});
    expect(elements.find((e) => e.type === "Heading")?.props.text).toBe("Saturday 5 December");
    expect(elements.find((e) => e.type === "Briefing")?.props).toEqual({
      lines: ["1 material change since yesterday — Acme Pro: price −10%", "No events today"],
      slot: "briefing",
    });
    expect(card.slots?.briefing).toMatchObject({ content: null });
    expect(briefingItem(buildBriefing(input), new Date(NOW.getTime() + 60_000)).id).toBe(card.id);
  });

  it("a new change, another day or another zone is another card", () => {
    const id = briefingItem(buildBriefing(input), NOW).id;
    const more = { ...input, changes: { total: 2, trackerCount: 2, trackers: [rival, acme] } };
    expect(briefingItem(buildBriefing(more), NOW).id).not.toBe(id);
    const tomorrow = new Date(NOW.getTime() + 86_400_000);
    expect(briefingItem(buildBriefing({ ...input, now: tomorrow }), tomorrow).id).not.toBe(id);
    expect(briefingItem(buildBriefing({ ...input, zone: "Pacific/Auckland" }), NOW).id).not.toBe(id);
  });
});

describe("a change as the briefing names it", () => {
  const row = {
    id: "c1",
    trackerId: "t1",
    capturedAt: NOW,
    decisions: {},
    changes: 1,
    total: 1,
    trackerCount: 1,
  };

  it("a thing by its name and first field; without a name, by its decision (shortened, quoted)", () => {
    const definition = {
      fields: [
        {
          name: "price",
          type: "money",
          currency: "USD",
          description: "Price",
          extractor: { kind: "css", selector: "#p" },
        },
      ],
      identityRule: { kind: "canonical_url" },
      materiality: { price: { kind: "numeric", relative: 0.01 } },
    };
    const delta = { price: { from: { amount: 50, currency: "USD" }, to: { amount: 45, currency: "USD" } } };
    const named = describeBriefingChange({
      ...row,
      delta,
      decision: "Should we match Acme's price?",
      capability: "web.scrape",
      definition,
      fields: { name: "Acme Pro" },
    });
    expect(named).toEqual({ trackerId: "t1", subject: "Acme Pro", what: "price −10%", count: 1 });
    const unnamed = describeBriefingChange({
      ...row,
      delta: { status: { from: "open", to: "closed" } },
      decision: "Is the venue on the high street still open on Sundays?",
      capability: "web.scrape",
      definition: null,
      fields: {},
    });
    expect(unnamed.subject).toBe("“Is the venue on the high street still o…”");
    expect(unnamed.what).toBe("status open → closed");
  });

  it("a set by its roll-up's headline, in its members' noun", () => {
    const set = describeBriefingChange({
      ...row,
      delta: {
        appeared: { from: null, to: ["Oat Roast", "Rye Roast"] },
        disappeared: { from: ["Kenya Nyeri AA"], to: null },
        members: { from: 7, to: 8 },
      },
      decision: "Rival shop",
      capability: "feed.items",
      definition: {
        fields: [
          {
            name: "title",
            type: "string",
            description: "Title",
            extractor: { kind: "json_pointer", pointer: "/title" },
          },
        ],
        identityRule: { kind: "canonical_url" },
        materiality: { title: { kind: "any_change" } },
        set: { missingAfter: 2, maxEntities: 200, rules: [{ kind: "appeared" }] },
      },
      fields: { members: 8, missing: 0 },
    });
    expect(set.subject).toBe("“Rival shop”");
    expect(set.what).toBe("2 new entries, 1 gone");
  });
});

describe("the model's briefing is held to the card", () => {
  it("two lines at most; the card is never suppressed or re-ranked by the model", () => {
    expect(clampBriefingText("  One.\n\n Two  words.\nThree.")).toBe("One.\nTwo words.");
    const input: THarnessInput = {
      items: [
        { id: "briefing:x", type: "briefing", data: {}, slots: { briefing: "the day" } },
        { id: "change:1", type: "tracker-change", data: {}, slots: { why: "why" } },
      ],
      userMemory: "",
    };
    const { result } = normaliseEnhancement(
      {
        slotFills: [{ itemId: "briefing:x", slot: "briefing", text: "Acme cut 10%.\nStand-up at 9:30.\nExtra." }],
        syntheticItems: [],
        suppress: ["briefing:x", "change:1"],
        rankingHints: [
          { itemId: "briefing:x", delta: -1 },
          { itemId: "change:1", delta: 0.5 },
        ],
      },
      input,
      new Set(["briefing:x", "change:1"]),
    );
    expect(result.slotFills["briefing:x"]?.briefing).toBe("Acme cut 10%.\nStand-up at 9:30.");
    expect(result.suppress).toEqual(["change:1"]);
    expect(result.rankingHints).toEqual({ "change:1": 0.5 });
  });
});
