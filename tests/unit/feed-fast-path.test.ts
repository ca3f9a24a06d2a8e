import { afterEach, describe, expect, it, vi } from "vitest";
import type { z } from "zod";
import { feedCatalog, hasCatalogShape, quickAccept } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";
import { feedHref, isPlainAppPath } from "@/contracts/feed-link";
import { parseStoredEnhancement } from "@/server/enhancement/enhancement-manager";
import { assembleFeed } from "@/server/feed/get-feed";
import { memoryWords } from "@/server/feed/post-process";
import { eventItem } from "@/server/feed/sources/calendar-source";
import { failingItem, trackerCardItem } from "@/server/feed/sources/trackers-source";

/**
 * The feed fast path (DESIGN §6) runs on every feed load for every card. Its shortcuts must answer exactly as
 * the checks they stand in for, and its per-item work must stay per item: counted here, never timed.
 */

const NOW = new Date("2026-11-29T08:30:00Z");

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Real cards from the sources' builders: one card per decision (three changes each), failing trackers, events. */
function cards(n: number): TFeedItem[] {
  return Array.from({ length: n }, (_, i) => {
    const at = new Date(NOW.getTime() - i * 60_000);
    if (i % 10 === 0) {
      const start = new Date(NOW.getTime() + (i % 30) * 600_000);
      const o = {
        uid: `e${i}`,
        recurrenceId: null,
        summary: `Ride ${i}`,
        location: "Depot",
        allDay: false,
        start: start.toISOString(),
        end: null,
      };
      return eventItem(o, start, null, NOW);
    }
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
    const random = seeded(13);
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
    const random = seeded(7);
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
    const random = seeded(3);
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

  /** How often the fast path serialises, reads a timestamp and asks zod, for one feed of `n` cards. */
  function work(n: number) {
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
    // Ordering reads each timestamp once (a comparator reading them would grow as n log n: ×16 here).
    expect(big.getTime).toBeLessThanOrEqual(3 * 500);
    expect(big.getTime).toBeLessThanOrEqual(10 * small.getTime);
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
