import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { z } from "zod";
import { feedCatalog, hasCatalogShape, quickAccept, validateFeedSpec } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";
import { feedHref, isPlainAppPath } from "@/contracts/feed-link";
import { parseStoredEnhancement } from "@/server/enhancement/enhancement-manager";
import { agendaDayItem } from "@/server/feed/agenda/agenda-card";
import { groupAgenda } from "@/server/feed/agenda/group-agenda";
import { dayKeyOf } from "@/server/feed/agenda/zoned-day";
import type { TCalendarOccurrence } from "@/server/feed/calendar/parse-calendar";
import { CARD_MEMO_SIZE, cardMemo, memoOfCard } from "@/server/feed/card-memo";
import { assembleFeed } from "@/server/feed/get-feed";
import { DEFAULT_POST_PROCESSORS, memoryWords, postProcess } from "@/server/feed/post-process";
import { failingItem, type TChangeRow, trackerCardItem } from "@/server/feed/sources/trackers-source";
import { LruMap } from "@/server/lib/lru-map";
import type { TPersonTimeZone } from "@/server/settings/time-zone";
import { seededRandom } from "../bench/stats";

// The catalog check, counted: every module that imports it (build-feed.ts among them) gets this spy.
vi.mock("@/contracts/feed-catalog", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/contracts/feed-catalog")>();
  return { ...actual, validateFeedSpec: vi.fn(actual.validateFeedSpec) };
});
const checks = vi.mocked(validateFeedSpec);

/**
 * The feed fast path (docs/design.md §6) runs on every feed load for every card. Its shortcuts must answer exactly as
 * the checks they stand in for, and its per-item work must stay per item: counted here, never timed.
 */

const NOW = new Date("2026-11-29T08:30:00Z");

const UTC: TPersonTimeZone = { zone: "UTC", source: "default" };
const DAY_MS = 24 * 3_600_000;

/**
 * The calendar's cards as the calendar source builds them (calendar-source.ts): the occurrences grouped into the
 * agenda's days once (groupAgenda), then a day card for today and for every other day with something on it.
 */
function agendaCards(
  occurrences: readonly TCalendarOccurrence[],
  now: Date,
  days: number,
  zone: TPersonTimeZone = UTC,
): TFeedItem[] {
  const today = dayKeyOf(now, zone.zone);
  return groupAgenda(occurrences, { zone: zone.zone, now, days, maxPerDay: 20 })
    .filter((d) => d.day === today || d.events.length > 0)
    .map((d, i) => agendaDayItem(d, { today, zone, withNote: i === 0 }));
}

/**
 * Real cards from the sources' builders: one card per decision (three changes each), failing trackers, and every
 * 10th an agenda day card (one event a day, on the days after today in turn, so each day card is another card).
 */
function cards(n: number): TFeedItem[] {
  const rides: TCalendarOccurrence[] = [];
  for (let i = 0; i < n; i += 10) {
    const start = new Date(NOW.getTime() + (i / 10) * DAY_MS + (i % 30) * 600_000);
    rides.push({
      uid: `e${i}`,
      recurrenceId: null,
      summary: `Ride ${i}`,
      location: "Depot",
      allDay: false,
      start: start.toISOString(),
      end: null,
    });
  }
  const days = agendaCards(rides, NOW, rides.length);
  return Array.from({ length: n }, (_, i) => {
    const at = new Date(NOW.getTime() - i * 60_000);
    if (i % 10 === 0) return days[i / 10] as TFeedItem;
    if (i % 10 === 1) {
      return failingItem({
        id: `f${i}`,
        decision: `Venue ${i}?`,
        lastError: "HTTP 500",
        consecutiveFailures: 3,
        updatedAt: at,
      });
    }
    const change = (k: number) => ({
      id: `c${i}-${k}`,
      capturedAt: new Date(at.getTime() - k * 3_600_000),
      delta: { price: { from: i - k, to: i + 1 - k }, ...(i % 2 ? { stock: { from: "in", to: "out" } } : {}) },
      decisions: {},
      materiality: i % 3 ? ("material" as const) : ("notable" as const),
    });
    return trackerCardItem(
      {
        tracker: { id: `t${i}`, decision: `Is their pricing below ours (${i % 7})?` },
        formats: new Map(),
        changes: [change(0), change(1), change(2)],
        total: 3 + (i % 40),
      },
      new Date(at.getTime() - 90 * 60_000),
    ) as TFeedItem;
  });
}

const clone = <T>(value: T): T => structuredClone(value);

describe("the quick catalog checks say yes only where the catalog's zod does", () => {
  const specs = cards(20).map((c) => c.ui as NonNullable<TFeedItem["ui"]>);
  const withExtras = {
    root: "r",
    elements: {
      r: { type: "Stack", props: {}, children: ["a"], slots: { default: ["a"] }, visible: true, other: 1 },
      a: { type: "Text", props: { text: "x", extra: [1] }, children: [] },
    },
  };
  // Values any position may be replaced with: wrong types, near-misses, and objects zod treats specially.
  const odd: unknown[] = [
    undefined,
    null,
    0,
    "",
    "x",
    "Stack",
    "Nope",
    "toString",
    "__proto__",
    true,
    [],
    ["a"],
    [1],
    [undefined],
    new Array(2),
    {},
    { default: ["a"] },
    { default: "a" },
    new Date(0),
    new Map(),
    Object.create(null),
    { constructor: Object },
    { constructor: () => {} },
    { constructor: 5 },
    JSON.parse('{"__proto__": {"type": "Text", "props": {}, "children": []}}'),
  ];

  it("shape: every spec it accepts, zod accepts (real cards and 3000 seeded mutations of them)", () => {
    const random = seededRandom(13);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
    let quick = 0;
    const check = (spec: unknown) => {
      if (!hasCatalogShape(spec)) return;
      quick++;
      expect(feedCatalog.validate(spec).success, JSON.stringify(spec)).toBe(true);
    };
    for (const spec of [...specs, withExtras]) {
      expect(hasCatalogShape(spec)).toBe(true); // the common case takes the quick path
      check(spec);
    }
    for (let i = 0; i < 3000; i++) {
      const spec = clone(pick([...specs, withExtras])) as Record<string, unknown>;
      const elements = spec.elements as Record<string, Record<string, unknown>>;
      const key = pick(Object.keys(elements));
      const where = pick(["spec", "root", "elements", "element", "type", "props", "children", "slots", "extra"]);
      const value = pick(odd);
      if (where === "spec") check(value);
      else if (where === "root") check({ ...spec, root: value });
      else if (where === "elements") check({ ...spec, elements: value });
      else if (where === "element") check({ ...spec, elements: { ...elements, [key]: value } });
      else if (where === "extra") check({ ...spec, elements: { ...elements, [pick(["z", "__proto__"])]: value } });
      else check({ ...spec, elements: { ...elements, [key]: { ...elements[key], [where]: value } } });
    }
    expect(quick).toBeGreaterThan(100); // both answers were exercised
  });

  it("props: every value it accepts, the component's zod schema accepts", () => {
    const random = seededRandom(7);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
    const components = feedCatalog.data.components as Record<string, { props: z.ZodType }>;
    const real = cards(20).flatMap((c) => Object.values(c.ui?.elements ?? {}));
    const strings = ["", "a", "x".repeat(60), "x".repeat(61), "x".repeat(300), "x".repeat(301), "😀".repeat(40)];
    const values = [...odd, ...strings, "vertical", "sm", "material", "muted", "failing", 4.5, Number.NaN];
    let quick = 0;
    for (const [name, component] of Object.entries(components)) {
      const accept = quickAccept(component.props);
      if (!accept) continue;
      const samples = real.filter((el) => el.type === name).map((el) => el.props);
      for (const props of samples) expect(accept(props), `${name} ${JSON.stringify(props)}`).toBe(true);
      const keys = [...Object.keys(samples[0] ?? {}), "extra"];
      for (let i = 0; i < 400; i++) {
        const base = clone(samples.length ? pick(samples) : {});
        const props = random() < 0.05 ? pick(values) : { ...base, [pick(keys)]: pick(values) };
        if (!accept(props)) continue;
        quick++;
        expect(component.props.safeParse(props).success, `${name} ${JSON.stringify(props)}`).toBe(true);
      }
    }
    // Every component the sources use has a quick check (else zod is back on every card of every load).
    for (const el of real) expect(quickAccept(components[el.type]?.props as z.ZodType), el.type).not.toBeNull();
    expect(quick).toBeGreaterThan(100);
  });

  it("feedHref's plain-path shortcut answers as the URL parser does", () => {
    const random = seededRandom(3);
    const alphabet = ["/", "/", "a", "Z", "0", "-", "_", "~", ".", "..", "%2e", "?", "#", ":", "@", "\\", "é", "!"];
    const viaUrl = (href: string) => {
      const url = new URL(href, "http://app.invalid/");
      return url.origin === "http://app.invalid"
        ? { kind: "app", href: `${url.pathname}${url.search}${url.hash}` }
        : null;
    };
    for (let i = 0; i < 3000; i++) {
      let path = "/";
      const len = 1 + Math.floor(random() * 12);
      for (let j = 0; j < len; j++) path += alphabet[Math.floor(random() * alphabet.length)];
      if (path.startsWith("//") || path.startsWith("/\\")) continue;
      expect(feedHref(path), path).toEqual(viaUrl(path.replaceAll("\\", "/")));
    }
    // The char-code scan says what the plain-path pattern says (it stands in for it on every card's links).
    const pattern = /^(?:\/[\w~-][\w.~-]*)+\/?$/;
    for (let i = 0; i < 3000; i++) {
      let path = random() < 0.9 ? "/" : "";
      const len = Math.floor(random() * 12);
      for (let j = 0; j < len; j++) path += alphabet[Math.floor(random() * alphabet.length)];
      expect(isPlainAppPath(path), path).toBe(pattern.test(path));
    }
    for (const path of ["/", "//", "/a/", "/a//b", "/.a", "/a.", "/a/.", "/~/-/_", " /a", "/a ", "/a\tb"]) {
      expect(isPlainAppPath(path), path).toBe(pattern.test(path));
    }
    expect(feedHref("/trackers/cm3x9k2l0000a1b2c3d4e5f6")).toEqual({
      kind: "app",
      href: "/trackers/cm3x9k2l0000a1b2c3d4e5f6",
    });
  });
});

describe("the fast path's per-item work stays per item", () => {
  afterEach(() => vi.restoreAllMocks());

  /** How often the fast path serialises, reads a timestamp and asks zod, for one feed of `n` cards (cold memo). */
  function work(n: number) {
    cardMemo.clear();
    const raw = cards(n);
    const stored = JSON.parse(
      JSON.stringify({
        slotFills: Object.fromEntries(raw.slice(0, 40).map((c) => [c.id, { why: "Because." }])),
        rankingHints: { [raw[3]?.id ?? ""]: 0.3 },
        suppress: [raw[5]?.id],
        syntheticItems: [
          {
            id: "synthetic:brief",
            type: "briefing",
            ui: { root: "r", elements: { r: { type: "Text", props: { text: "Brief" }, children: [] } } },
          },
        ],
      }),
    );
    const ctx = { now: NOW, memoryWords: memoryWords("I cycle to work; we care about pricing") };
    const stringify = vi.spyOn(JSON, "stringify");
    const getTime = vi.spyOn(Date.prototype, "getTime");
    const validate = vi.spyOn(feedCatalog, "validate");
    const components = feedCatalog.data.components as Record<string, { props: z.ZodType }>;
    const props = Object.values(components).map((c) => vi.spyOn(c.props, "safeParse"));
    const { items } = assembleFeed(raw, parseStoredEnhancement(stored, "u"), ctx);
    const counts = {
      stringify: stringify.mock.calls.length,
      getTime: getTime.mock.calls.length,
      zod: validate.mock.calls.length + props.reduce((sum, p) => sum + p.mock.calls.length, 0),
      out: items.length,
    };
    vi.restoreAllMocks();
    return counts;
  }

  it("50 vs 500 cards: no serialisation, timestamps read once per card, no catalog zod parse", () => {
    work(10); // zod compiles its parsers on first use (serialising their keys): not per load
    const small = work(50);
    const big = work(500);
    expect(small.out).toBe(50); // 50 cards − 1 suppressed + 1 synthetic
    expect(big.out).toBe(500);
    // The memory-word match walks each card's data in place: nothing serialises.
    expect(small.stringify).toBe(0);
    expect(big.stringify).toBe(0);
    // Ordering reads each timestamp once: ~10× the reads for 10× the cards (a comparator reading them would grow as
    // n log n: ~16× here). Some margin above 10×: the cards' mix differs a little between the two sizes.
    expect(big.getTime).toBeLessThanOrEqual(3 * 500);
    expect(big.getTime).toBeLessThanOrEqual(12 * small.getTime);
    expect(small.getTime).toBeGreaterThan(0);
    // Well-formed cards and the stored enhancement's synthetic card pass the quick checks: zod is not asked.
    expect(small.zod).toBe(0);
    expect(big.zod).toBe(0);
  });
});

describe("the fast path's work grows linearly with the feed", () => {
  const SCANS = ["some", "find", "findIndex", "findLast", "findLastIndex", "every", "filter", "includes", "indexOf"];

  /**
   * Counted work for one feed of `n` cards: property reads of every card as it arrives and of what every copy of
   * it shares (data, signals, slots, spec elements), through a Proxy; elements passed over by array searches
   * (`some`, `find`, `includes`… add the length they are called on); timestamp reads; serialisations.
   * Work that became quadratic (a search over the feed per card, a rescan per pass) grows ×100 from 500 to 5000
   * cards, a sort comparator reading cards ×13.7, where the per-card work grows ×10.
   */
  function work(n: number) {
    cardMemo.clear(); // the copies below have no memo entries anyway: this counts the cold path
    let reads = 0;
    const counted = <T extends object>(target: T): T =>
      new Proxy(target, {
        get(t, key, receiver) {
          reads++;
          return Reflect.get(t, key, receiver);
        },
        ownKeys(t) {
          reads++;
          return Reflect.ownKeys(t);
        },
      });
    const raw = cards(n).map((card) =>
      counted({
        ...card,
        data: counted(card.data),
        ...(card.signals ? { signals: counted(card.signals) } : {}),
        ...(card.slots ? { slots: counted(card.slots) } : {}),
        ...(card.ui
          ? {
              ui: {
                ...card.ui,
                elements: Object.fromEntries(Object.entries(card.ui.elements).map(([k, el]) => [k, counted(el)])),
              },
            }
          : {}),
      }),
    );
    const stored = JSON.parse(
      JSON.stringify({
        slotFills: Object.fromEntries(raw.slice(0, 40).map((c) => [c.id, { why: "Because." }])),
        rankingHints: Object.fromEntries(raw.slice(0, 40).map((c, i) => [c.id, i % 2 ? 0.2 : -0.1])),
        suppress: raw.slice(40, 42).map((c) => c.id),
        syntheticItems: [
          {
            id: "synthetic:brief",
            type: "briefing",
            ui: { root: "r", elements: { r: { type: "Text", props: { text: "Brief" }, children: [] } } },
          },
        ],
      }),
    );
    const ctx = { now: NOW, memoryWords: memoryWords("I cycle to work; we care about pricing") };
    const cached = parseStoredEnhancement(stored, "u");
    let scanned = 0;
    const proto = Array.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
    const originals = SCANS.map((name) => [name, proto[name]] as const);
    for (const [name, original] of originals) {
      proto[name] = function (this: unknown[], ...args: unknown[]) {
        scanned += this.length;
        return original?.apply(this, args);
      };
    }
    const stringify = vi.spyOn(JSON, "stringify");
    const getTime = vi.spyOn(Date.prototype, "getTime");
    reads = 0;
    let out: number;
    try {
      out = assembleFeed(raw, cached, ctx).items.length;
    } finally {
      for (const [name, original] of originals) proto[name] = original as (...args: unknown[]) => unknown;
    }
    const counts = { reads, scanned, stringify: stringify.mock.calls.length, getTime: getTime.mock.calls.length, out };
    vi.restoreAllMocks();
    return counts;
  }

  it("500 vs 5000 cards: ~10× the reads, searches and timestamp reads; no serialisation at either size", () => {
    work(20); // warm-up
    const small = work(500);
    const big = work(5000);
    expect(small.out).toBe(500 - 2 + 1);
    expect(big.out).toBe(5000 - 2 + 1);
    expect(small.stringify).toBe(0);
    expect(big.stringify).toBe(0);
    for (const kind of ["reads", "getTime"] as const) {
      expect(small[kind], kind).toBeGreaterThan(0);
      expect(big[kind] / small[kind], kind).toBeGreaterThan(8);
      expect(big[kind] / small[kind], kind).toBeLessThan(12);
    }
    // Searches over arrays stay within a card (its few elements), never over the feed.
    expect(big.scanned).toBeLessThanOrEqual(12 * Math.max(small.scanned, 500));
  });
});

describe("the card memo: a repeat load of the same cards does their per-card work once", () => {
  beforeEach(() => {
    cardMemo.clear();
    checks.mockClear();
  });

  const ctx = { now: NOW, memoryWords: memoryWords("I cycle to work; we care about pricing") };
  const stored = (raw: TFeedItem[]) =>
    parseStoredEnhancement(
      JSON.parse(
        JSON.stringify({
          slotFills: Object.fromEntries(raw.slice(0, 30).map((c) => [c.id, { why: "Because." }])),
          rankingHints: { [raw[4]?.id ?? ""]: 0.4 },
          suppress: [raw[7]?.id],
          syntheticItems: [],
        }),
      ),
      "u",
    );
  /** Catalog checks of cards (not of a stored enhancement's synthetic cards, which are checked with other limits). */
  const cardChecks = () => checks.mock.calls.filter((call) => call.length === 1).length;

  it("the same 500 cards rebuilt: no catalog check the second time, and the same feed", () => {
    const first = cards(500);
    const cold = assembleFeed(first, stored(first), ctx);
    expect(cardChecks()).toBe(500); // every card of the fixture has a spec
    checks.mockClear();
    const again = cards(500); // new objects, same content: what the next page load builds
    const warm = assembleFeed(again, stored(again), ctx);
    expect(cardChecks()).toBe(0);
    expect(warm.items).toEqual(cold.items);
    expect(warm.processed).toEqual(cold.processed);
    // And what a memo-free pass gives (the composable processors never read the memo).
    const plain = postProcess(cards(500), ctx, [...DEFAULT_POST_PROCESSORS]);
    expect(warm.processed.map((i) => [i.id, i.score, i.groupKey])).toEqual(
      plain.map((i) => [i.id, i.score, i.groupKey]),
    );
  });

  it("a changed card is checked again, the others are not", () => {
    // Each decision's changes are rows written once: an id always has the same content.
    const row = (i: number, k: number): TChangeRow => ({
      id: `edit-c${i}-${k}`,
      capturedAt: new Date(NOW.getTime() - k * 3_600_000),
      delta: { price: { from: i + k, to: i + k + 1 } },
      decisions: {},
      materiality: "material",
    });
    const card = (i: number, edit: { decision?: string; newest?: number; seenSince?: Date; total?: number } = {}) =>
      trackerCardItem(
        {
          tracker: { id: `edit-t${i}`, decision: edit.decision ?? `Decision ${i}?` },
          formats: new Map(),
          changes: [edit.newest ?? 1, 2, 3].map((k) => row(i, k)),
          total: edit.total ?? 3,
        },
        edit.seenSince ?? null,
      ) as TFeedItem;
    const load = () => Array.from({ length: 20 }, (_, i) => card(i));
    const cold = assembleFeed(load(), null, ctx);
    expect(cardChecks()).toBe(20);
    checks.mockClear();
    const next = load();
    next[2] = card(2, { newest: 0 }); // a new change arrived
    next[3] = card(3, { decision: "Decision 3, edited?" });
    next[4] = card(4, { seenSince: new Date(NOW.getTime() - 2 * 3_600_000) }); // its newest change is now "new"
    next[5] = card(5, { total: 4 }); // one more change in the window: "3 earlier"
    const changed = assembleFeed(next, null, ctx);
    expect(cardChecks()).toBe(4);
    expect(changed.items).not.toEqual(cold.items);
    checks.mockClear();
    assembleFeed(
      next.map((_, i) => (i >= 2 && i <= 5 ? (next[i] as TFeedItem) : card(i))),
      null,
      ctx,
    );
    expect(cardChecks()).toBe(0); // the changed cards are memoised in their turn
  });

  it("an invalid spec's verdict is kept too: the card stays a plain card without a second check", () => {
    const long = "x".repeat(301); // Heading allows 300 characters
    const make = () =>
      trackerCardItem(
        {
          tracker: { id: "t-long", decision: long },
          formats: new Map(),
          changes: [
            {
              id: "c-long",
              capturedAt: NOW,
              delta: { price: { from: 1, to: 2 } },
              decisions: {},
              materiality: "material",
            },
          ],
          total: 1,
        },
        null,
      ) as TFeedItem;
    const cold = assembleFeed([make()], null, ctx);
    const warm = assembleFeed([make()], null, ctx);
    expect(cold.items[0]?.ui).toBeUndefined();
    expect(warm.items).toEqual(cold.items);
    expect(cardChecks()).toBe(1);
  });

  it("a content change changes the card's entry: builders' keys name everything a card is made of", () => {
    const random = seededRandom(21);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
    // Change rows and definition versions are written once (an id or a version stands for its content).
    const pool: TChangeRow[] = [0, 1, 2, 3].map((k) => ({
      id: `pool-${k}`,
      capturedAt: new Date(NOW.getTime() - k * 3_600_000),
      delta: { price: { from: 10 + k, to: 11 + k }, ...(k % 2 ? { stock: { from: "in", to: "out" } } : {}) },
      decisions: {},
      materiality: k % 3 ? "material" : "notable",
    }));
    const versions = new Map<number, Map<string, { type: "money" | "number"; currency?: string; unit?: string }>>([
      [1, new Map([["price", { type: "money", currency: "EUR" }]])],
      [2, new Map([["price", { type: "number", unit: "kg" }]])],
    ]);
    const variants: TFeedItem[] = [];
    for (let i = 0; i < 400; i++) {
      const version = pick([null, 1, 2]);
      const from = pick([0, 1]);
      const changes = pool.slice(from, from + pick([1, 2, 3]));
      const seenSince = pick([null, new Date(NOW.getTime() - 90 * 60_000), new Date(NOW.getTime() - 150 * 60_000)]);
      variants.push(
        trackerCardItem(
          {
            tracker: { id: pick(["ta", "tb"]), decision: pick(["Buy?", "Buy now?"]) },
            formats: version === null ? new Map() : (versions.get(version) as Map<string, never>),
            definitionVersion: version,
            changes,
            total: pick([changes.length, 7, 1000]),
          },
          seenSince,
        ) as TFeedItem,
      );
      const start = new Date(NOW.getTime() + pick([1, 3, 30]) * 3_600_000);
      const allDay = pick([false, true]);
      // The calendar source's cards for one event: today's card (empty when the event is over or on another day)
      // and the event's day; its content, its time, the load's `now` and the zone vary. One UID: a day card does
      // not show it (the key names it, so events told apart by their UID alone would be two entries of one card).
      variants.push(
        ...agendaCards(
          [
            {
              uid: "u1",
              recurrenceId: pick([null, "2026-11-30"]),
              summary: pick(["Ride", "Ride|s4:x", "Ride "]),
              location: pick([null, "Depot", "|s5:Depot"]),
              allDay,
              start: allDay ? pick(["2026-11-30", "2026-12-01"]) : start.toISOString(),
              end: pick([null, allDay ? "2026-12-02" : new Date(start.getTime() + 3_600_000).toISOString()]),
            },
          ],
          pick([NOW, new Date(NOW.getTime() + 2 * 3_600_000)]),
          7,
          pick<TPersonTimeZone>([UTC, { zone: "Asia/Tokyo", source: "settings" }]),
        ),
      );
      variants.push(
        failingItem({
          id: pick(["fa", "fb"]),
          decision: pick(["Open?", "Open? "]),
          lastError: pick([null, "HTTP 500", "HTTP 500 "]),
          consecutiveFailures: pick([3, 4]),
          updatedAt: pick([NOW, new Date(NOW.getTime() - 1)]),
        }),
      );
    }
    const content = new Map<object, string>();
    let groups = 0;
    for (const card of variants) {
      const memo = memoOfCard(card);
      expect(memo, card.type).toBeDefined(); // every builder here keys its cards
      const json = JSON.stringify(card);
      const seen = content.get(memo as object);
      if (seen === undefined) {
        content.set(memo as object, json);
        groups++;
      } else expect(json, "two different cards share a memo entry").toBe(seen);
    }
    // The same card built again finds the same entry (what makes a repeat load warm), often enough here that
    // sharing is tested, not avoided…
    expect(variants.length - groups).toBeGreaterThan(200);
    // …and as many entries as distinct cards: no change of content keeps its old entry.
    expect(new Set(variants.map((c) => JSON.stringify(c))).size).toBe(groups);
  });

  it("a card whose formats cannot be named (formats without a version) is not memoised", () => {
    const card = trackerCardItem(
      {
        tracker: { id: "t-formats", decision: "Buy?" },
        formats: new Map([["price", { type: "money", currency: "EUR" }]]),
        changes: [
          { id: "c-f", capturedAt: NOW, delta: { price: { from: 1, to: 2 } }, decisions: {}, materiality: "material" },
        ],
        total: 1,
      },
      null,
    ) as TFeedItem;
    expect(memoOfCard(card)).toBeUndefined();
    assembleFeed([card], null, ctx);
    assembleFeed([card], null, ctx);
    expect(cardChecks()).toBe(2); // checked on every load, as before the memo
  });

  it("two users: their own trackers never share an entry; a shared calendar event answers each one's memory", () => {
    const decision = "Is the venue open?";
    const change = (id: string) => ({
      id,
      capturedAt: NOW,
      delta: { price: { from: 1, to: 2 } },
      decisions: {},
      materiality: "material" as const,
    });
    const a = trackerCardItem(
      { tracker: { id: "t-user-a", decision }, formats: new Map(), changes: [change("ca")], total: 1 },
      null,
    );
    const b = trackerCardItem(
      { tracker: { id: "t-user-b", decision }, formats: new Map(), changes: [change("cb")], total: 1 },
      null,
    );
    expect(memoOfCard(a as TFeedItem)).not.toBe(memoOfCard(b as TFeedItem));
    // The same ICS event in both users' calendars (and zones) is the same day card: one entry, a verdict about its
    // content only.
    const start = new Date(NOW.getTime() + 5 * 3_600_000);
    const occurrence = {
      uid: "shared",
      recurrenceId: null,
      summary: "Cycling club",
      location: "Depot",
      allDay: false,
      start: start.toISOString(),
      end: null,
    };
    const event = () => {
      const [today, ...others] = agendaCards([occurrence], NOW, 7);
      expect(others).toEqual([]); // the event is today's
      expect(today?.data.events).toMatchObject([{ title: "Cycling club" }]);
      return today as TFeedItem;
    };
    expect(memoOfCard(event())).toBe(memoOfCard(event()));
    const cyclist = { now: NOW, memoryWords: memoryWords("I go cycling on Sundays") };
    const other = { now: NOW, memoryWords: memoryWords("We care about pricing") };
    const score = (c: typeof ctx) => assembleFeed([event()], null, c).items[0]?.score;
    const expected = (c: typeof ctx) => postProcess([event()], c, [...DEFAULT_POST_PROCESSORS])[0]?.score;
    expect(expected(cyclist)).not.toBe(expected(other)); // the words matter for this card
    for (const c of [cyclist, other, cyclist, other]) expect(score(c)).toBe(expected(c));
    expect(cardChecks()).toBe(1); // one content, one check
  });

  it("stays bounded: at most 2 × CARD_MEMO_SIZE entries however many cards pass", () => {
    for (let i = 0; i < 3 * CARD_MEMO_SIZE; i++) {
      failingItem({ id: `bound-${i}`, decision: "Open?", lastError: null, consecutiveFailures: 3, updatedAt: NOW });
    }
    expect(cardMemo.size).toBeGreaterThanOrEqual(CARD_MEMO_SIZE);
    expect(cardMemo.size).toBeLessThanOrEqual(2 * CARD_MEMO_SIZE);
  });
});

describe("LruMap", () => {
  it("keeps the last maxSize keys used, holds at most 2 × maxSize, and a read keeps an entry", () => {
    const lru = new LruMap<string, { v: number }>(3);
    for (let i = 0; i < 10; i++) lru.set(`k${i}`, { v: i });
    expect(lru.size).toBeLessThanOrEqual(6);
    for (const k of ["k7", "k8", "k9"]) expect(lru.get(k)).toBeDefined();
    expect(lru.get("k0")).toBeUndefined();
    // A key read now and then outlives keys written after it.
    const kept = new LruMap<string, { v: number }>(3);
    kept.set("keep", { v: -1 });
    for (let i = 0; i < 30; i++) {
      kept.set(`w${i}`, { v: i });
      expect(kept.get("keep")?.v).toBe(-1);
      expect(kept.size).toBeLessThanOrEqual(6);
    }
    expect(kept.getOrSet("keep", () => ({ v: 0 })).v).toBe(-1);
    expect(kept.getOrSet("new", () => ({ v: 1 })).v).toBe(1);
    expect(kept.get("new")?.v).toBe(1);
  });
});
