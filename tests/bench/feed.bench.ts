import { PerformanceObserver } from "node:perf_hooks";
import type { TFeedItem } from "@/contracts/feed-item";
import type { TDb } from "@/server/db";
import { buildHarnessInput } from "@/server/enhancement/build-input";
import { parseStoredEnhancement } from "@/server/enhancement/enhancement-manager";
import { agendaDayItem } from "@/server/feed/agenda/agenda-card";
import { groupAgenda } from "@/server/feed/agenda/group-agenda";
import { dayKeyOf } from "@/server/feed/agenda/zoned-day";
import type { TCalendarOccurrence } from "@/server/feed/calendar/parse-calendar";
import { cardMemo } from "@/server/feed/card-memo";
import { assembleFeed, getFeed } from "@/server/feed/get-feed";
import { memoryWords, postProcess } from "@/server/feed/post-process";
import { failingItem, trackerCardItem } from "@/server/feed/sources/trackers-source";
import type { TPersonTimeZone } from "@/server/settings/time-zone";
import { updateUserSettings } from "@/server/settings/user-settings";
import { createTestDb } from "../helpers/db";
import { fmt, numberOption, type TBenchArgs, type TBenchFlag, type TBenchmark, table } from "./harness";
import { countSql } from "./sql-counter";
import { percentile } from "./stats";

/**
 * The feed's fast path (docs/design.md §6) at 500 and 5000 items, side by side in one run, rounds alternating which
 * size goes first, so the 5000/500 ratio (10 = linear) is read off the same machine state:
 * 1. in-process — exactly what `getFeed` does between the sources and the response: parse the stored
 *    enhancement (`parseStoredEnhancement`) and `assembleFeed` (post-processors, the catalog check of every
 *    card, the merge, the ordering). The cards come from the sources' own builders, rebuilt before every
 *    (untimed) run as a page load rebuilds them, so nothing can be carried over between runs by identity;
 *    each round times it cold (new cards, empty card memo) and warm (the same cards again), see `inProcess`.
 * 2. page load — `getFeed` as the feed router calls it (touch, no model call) on in-memory PGlite: the SQL,
 *    the sources and the in-process part. The enhancement it schedules runs after the response and is left out.
 * p50/p95 are reported and never asserted.
 */

const SIZES = [500, 5000] as const;
const MEMORY = "I cycle to work; we care about pricing";
const NOW = new Date("2026-11-29T08:30:00Z");

const UTC: TPersonTimeZone = { zone: "UTC", source: "default" };
const DAY_MS = 24 * 3_600_000;

/**
 * The agenda's day cards as the calendar source builds them (calendar-source.ts): the occurrences grouped into
 * days once (groupAgenda over `days` days from today), a card (agendaDayItem) for today and each day with events.
 */
function agendaCards(occurrences: readonly TCalendarOccurrence[], now: Date, days: number): TFeedItem[] {
  const today = dayKeyOf(now, UTC.zone);
  return groupAgenda(occurrences, { zone: UTC.zone, now, days, maxPerDay: 20 })
    .filter((d) => d.day === today || d.events.length > 0)
    .map((d, i) => agendaDayItem(d, { today, zone: UTC, withNote: i === 0 }));
}

/**
 * A mix like a busy feed: 80 % decision cards (one per tracker, 1–3 rows, a sparkline and 2 earlier changes),
 * 15 % failing trackers, 5 % agenda day cards (one event a day, today and the days after it in turn, so every day
 * card is another card). `salt` prefixes every tracker, change and event id: cards of another salt are other
 * cards (other memo keys), cards of the same salt are the same cards rebuilt.
 */
function makeItems(n: number, now: Date, salt = ""): TFeedItem[] {
  const rides: TCalendarOccurrence[] = [];
  for (let i = 0; i < n; i += 20) {
    const start = new Date(now.getTime() + (i / 20) * DAY_MS + (i % 48) * 600_000);
    rides.push({
      uid: `${salt}event-${i}`,
      recurrenceId: null,
      summary: `Ride ${i}`,
      location: "Depot",
      allDay: false,
      start: start.toISOString(),
      end: new Date(start.getTime() + 3_600_000).toISOString(),
    });
  }
  const days = agendaCards(rides, now, rides.length);
  return Array.from({ length: n }, (_, i) => {
    const timestamp = new Date(now.getTime() - i * 60_000);
    const trackerId = `${salt}t${i}`;
    const decision = `Decision ${i % 17}: ${i % 3 === 0 ? "is their pricing below ours" : "is the venue open"} (${i})`;
    if (i % 20 === 0) return days[i / 20] as TFeedItem;
    if (i % 20 <= 3) {
      return failingItem({
        id: `${salt}f${i}`,
        decision,
        lastError: "The page answered HTTP 500.",
        consecutiveFailures: 3 + (i % 5),
        updatedAt: timestamp,
      });
    }
    const delta: Record<string, { from: unknown; to: unknown }> = { price: { from: 10 + i, to: 9 + i } };
    if (i % 2) delta.availability = { from: "in stock", to: "out of stock" };
    if (i % 3 === 1) delta.rating = { from: 4.4, to: 4.1 };
    const materiality = i % 4 ? ("material" as const) : ("notable" as const);
    const changes = [0, 1, 2].map((k) => ({
      id: `${salt}c${i}-${k}`,
      capturedAt: new Date(timestamp.getTime() - k * 3_600_000),
      delta,
      decisions: {},
      materiality,
    }));
    return trackerCardItem(
      { tracker: { id: trackerId, decision }, formats: new Map(), changes, total: 3 + (i % 40) },
      new Date(timestamp.getTime() - 90 * 60_000),
    ) as TFeedItem;
  });
}

/**
 * The stored enhancement as the database hands it back (plain JSON). The model only ever sees the items that fit
 * the prompt budget (`buildHarnessInput`, ~24 000 characters: some 50–60 change cards), so that is what it
 * fills, ranks and suppresses, however long the feed: every slot of those items, a hint for every 3rd, 2 suppressed.
 */
function makeStoredEnhancement(items: TFeedItem[], now = NOW): unknown {
  const processed = postProcess(items, { now, memoryWords: memoryWords(MEMORY) });
  const sent = buildHarnessInput(processed, MEMORY).items;
  const slotFills: Record<string, Record<string, string>> = {};
  const rankingHints: Record<string, number> = {};
  sent.forEach((item, i) => {
    slotFills[item.id] = Object.fromEntries(Object.keys(item.slots).map((name) => [name, `Because ${i}.`]));
    if (i % 3 === 0) rankingHints[item.id] = i % 2 ? 0.2 : -0.1;
  });
  const suppress = sent.slice(-2).map((item) => item.id);
  const syntheticItems = [
    {
      id: "synthetic:brief",
      type: "briefing",
      ui: { root: "r", elements: { r: { type: "Text", props: { text: "Brief" }, children: [] } } },
    },
  ];
  return JSON.parse(JSON.stringify({ slotFills, rankingHints, suppress, syntheticItems }));
}

const ITERATIONS: TBenchFlag = {
  name: "feed-iterations",
  env: "BENCH_FEED_ITERATIONS",
  default: 100,
  min: 5,
  max: 100_000,
  integer: true,
  description: "in-process rounds; each round times a cold and a warm run at 500 and at 5000 items",
};

const LOADS: TBenchFlag = {
  name: "feed-loads",
  env: "BENCH_FEED_LOADS",
  default: 20,
  min: 0,
  max: 10_000,
  integer: true,
  description: "getFeed page loads per size on in-memory PGlite, interleaved (0 skips the page-load part)",
};

/**
 * Wall times (what a page waits for), the process's CPU time (steadier on a shared machine; GC helper threads
 * count too) and each run's window, to tell the runs a garbage collection landed in.
 */
type TSample = { times: number[]; cpu: number[]; windows: [number, number][]; out: number; statements: number };

const newSample = (): TSample => ({ times: [], cpu: [], windows: [], out: 0, statements: 0 });

/** Starts a clock; the returned function stops it and records the run in `sample`. */
function stopwatch(sample: TSample, record: boolean): () => void {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  return () => {
    const t1 = performance.now();
    const cpu = process.cpuUsage(cpu0);
    if (!record) return;
    sample.times.push(t1 - t0);
    sample.cpu.push((cpu.user + cpu.system) / 1000);
    sample.windows.push([t0, t1]);
  };
}

/** Garbage collections (start and end, on performance.now()'s clock), watched by one observer for the whole run. */
type TGcLog = { gcs: [number, number][]; flush: () => Promise<void>; stop: () => void };

function watchGc(): TGcLog {
  const gcs: [number, number][] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push([e.startTime, e.startTime + e.duration]);
  });
  observer.observe({ entryTypes: ["gc"] });
  return {
    gcs,
    // Entries are delivered after the fact, on a later turn of the event loop.
    flush: () => new Promise((resolve) => setTimeout(resolve, 100)),
    stop: () => observer.disconnect(),
  };
}

function runsWithGc(sample: TSample, gcs: readonly [number, number][]): number {
  return sample.windows.filter(([t0, t1]) => gcs.some(([g0, g1]) => g0 < t1 && g1 > t0)).length;
}

type TRow = { label: string; n: number; sample: TSample };

function sampleRows(entries: readonly TRow[], gcs: readonly [number, number][], withSql: boolean): string[][] {
  const rows: string[][] = [
    [
      "items",
      "memo",
      "runs",
      "with GC",
      "p50 ms",
      "p95 ms",
      "CPU p50 ms",
      "CPU p95 ms",
      "items out",
      ...(withSql ? ["SQL/load"] : []),
    ],
  ];
  for (const { label, n, sample: s } of entries) {
    rows.push([
      String(n),
      label,
      String(s.times.length),
      String(runsWithGc(s, gcs)),
      fmt(percentile(s.times, 50), 2),
      fmt(percentile(s.times, 95), 2),
      fmt(percentile(s.cpu, 50), 2),
      fmt(percentile(s.cpu, 95), 2),
      String(s.out),
      ...(withSql ? [fmt(s.statements / s.times.length, 1)] : []),
    ]);
  }
  return rows;
}

/** CPU times of the runs no garbage collection landed in: the code's own cost. */
function cpuWithoutGc(sample: TSample, gcs: readonly [number, number][]): number[] {
  return sample.cpu.filter((_, i) => {
    const [t0, t1] = sample.windows[i] as [number, number];
    return !gcs.some(([g0, g1]) => g0 < t1 && g1 > t0);
  });
}

function ratioLine(label: string, samples: Map<number, TSample>, gcs: readonly [number, number][]): string {
  const [small, big] = SIZES.map((n) => samples.get(n) as TSample) as [TSample, TSample];
  const r = (of: (s: TSample) => number[], p: number) => fmt(percentile(of(big), p) / percentile(of(small), p), 1);
  const noGc = (s: TSample) => cpuWithoutGc(s, gcs);
  return (
    `  ${label}${SIZES[1]}/${SIZES[0]}: p50 ×${r((s) => s.times, 50)}, p95 ×${r((s) => s.times, 95)}, CPU p50 ×${r((s) => s.cpu, 50)}, ` +
    `CPU p50 of runs without GC ×${r(noGc, 50)} (×${SIZES[1] / SIZES[0]} = linear)`
  );
}

/**
 * Each round and size times two runs of the same work on different memo states (server/feed/card-memo.ts):
 * cold — cards no load has seen (a new salt, so new keys) on an emptied memo, as after a deploy or for new
 * changes; warm — the same cards rebuilt from scratch (new objects, same content), as the next page load of the
 * same feed rebuilds them. Both parse the stored enhancement and merge it: those are per load, never memoised.
 */
async function inProcess(rounds: number, gc: TGcLog, out: (line: string) => void): Promise<void> {
  const ctx = { now: NOW, memoryWords: memoryWords(MEMORY) };
  const cold = new Map<number, TSample>(SIZES.map((n) => [n, newSample()]));
  const warm = new Map<number, TSample>(SIZES.map((n) => [n, newSample()]));
  const warmUp = 3; // the first rounds warm the JIT
  const run = (n: number, salt: string, s: TSample, record: boolean, emptyMemo: boolean) => {
    // Made from a copy of the cards (its postProcess fills their memo entries), then the memo is emptied for a
    // cold run before the cards are built: a builder finds its card's entry (card-memo.ts).
    const stored = makeStoredEnhancement(makeItems(n, NOW, salt));
    if (emptyMemo) cardMemo.clear();
    const raw = makeItems(n, NOW, salt);
    const stop = stopwatch(s, record);
    const { items } = assembleFeed(raw, parseStoredEnhancement(stored, "bench"), ctx);
    stop();
    s.out = items.length;
  };
  for (let round = 0; round < rounds + warmUp; round++) {
    for (const n of round % 2 ? [...SIZES].reverse() : SIZES) {
      const salt = `r${round}-`;
      run(n, salt, cold.get(n) as TSample, round >= warmUp, true);
      run(n, salt, warm.get(n) as TSample, round >= warmUp, false);
    }
  }
  await gc.flush();
  const { gcs } = gc;
  out(
    "feed fast path, in-process: parse the cached enhancement + assembleFeed (post-process, card check, merge, order);",
  );
  out("cold: new cards, empty card memo; warm: the same cards rebuilt (a repeat page load)");
  const rows = SIZES.flatMap((n) => [
    { label: "cold", n, sample: cold.get(n) as TSample },
    { label: "warm", n, sample: warm.get(n) as TSample },
  ]);
  out(table(sampleRows(rows, gcs, false)));
  out(ratioLine("cold ", cold, gcs));
  out(ratioLine("warm ", warm, gcs));
  const w = (n: number, p: number) =>
    fmt(percentile((cold.get(n) as TSample).cpu, p) / percentile((warm.get(n) as TSample).cpu, p), 1);
  out(`  cold/warm CPU: ${SIZES.map((n) => `${n}: p50 ×${w(n, 50)}, p95 ×${w(n, 95)}`).join("; ")}`);
}

/**
 * `count` items for one user: 30 decision cards (the trackers source's cap) of 20 changes each, the weather and
 * calendar invitations, and the rest failing trackers.
 */
async function seedUser(db: TDb, email: string, count: number): Promise<string> {
  const user = await db.user.create({ data: { email, name: email } });
  await updateUserSettings(db, user.id, {
    locationName: null,
    latitude: null,
    longitude: null,
    timezone: null,
    calendarUrl: null,
    memory: MEMORY,
  });
  const cards = 30;
  const perCard = 20;
  await db.tracker.createMany({
    data: Array.from({ length: count - cards - 2 }, (_, i) => ({
      userId: user.id,
      decision: `Decision ${i}: ${i % 3 === 0 ? "is their pricing below ours" : "is the venue open"}`,
      capability: "web.scrape",
      capabilityInput: { url: `https://shop.example/${i}` },
      status: "active" as const,
      consecutiveFailures: 3 + (i % 5),
      lastError: "The page answered HTTP 500.",
    })),
  });
  for (let c = 0; c < cards; c++) {
    const tracker = await db.tracker.create({
      data: {
        userId: user.id,
        decision: `Should we match Acme's price (${c})?`,
        capability: "web.scrape",
        capabilityInput: { url: `https://shop.example/acme/${c}` },
        status: "active",
      },
    });
    const run = await db.refreshRun.create({ data: { trackerId: tracker.id, trigger: "manual", status: "completed" } });
    await db.trackedEntity.createMany({
      data: Array.from({ length: perCard }, (_, i) => ({ trackerId: tracker.id, entityKey: `entity-${i}` })),
    });
    const entities = await db.trackedEntity.findMany({
      where: { trackerId: tracker.id },
      orderBy: { entityKey: "asc" },
    });
    await db.entityChange.createMany({
      data: entities.map((e, i) => ({
        entityId: e.id,
        trackerId: tracker.id,
        runId: run.id,
        capturedAt: new Date(NOW.getTime() - (c * perCard + i + 1) * 60_000),
        delta: { price: { from: 49 + i, to: 39 + i } },
        materiality: i % 4 ? ("material" as const) : ("notable" as const),
        decisions: {},
        definitionVersion: 1,
      })),
    });
  }
  const { items } = await getFeed(db, user.id, { now: NOW, enhance: false });
  await db.feedEnhancement.create({
    data: { userId: user.id, inputHash: "bench", result: makeStoredEnhancement(items) as object },
  });
  return user.id;
}

async function pageLoads(loads: number, gc: TGcLog, out: (line: string) => void): Promise<void> {
  const t = await createTestDb();
  try {
    const users = new Map<number, string>();
    for (const n of SIZES) users.set(n, await seedUser(t.db, `feed-${n}@bench.example`, n));
    const sql = countSql(t.pglite);
    const samples = new Map<number, TSample>(SIZES.map((n) => [n, newSample()]));
    const warmUp = 2;
    try {
      for (let round = 0; round < loads + warmUp; round++) {
        for (const n of round % 2 ? [...SIZES].reverse() : SIZES) {
          const s = samples.get(n) as TSample;
          const before = sql.statements;
          const stop = stopwatch(s, round >= warmUp);
          const feed = await getFeed(t.db, users.get(n) as string, { now: NOW, touch: true, enhance: false });
          stop();
          if (round >= warmUp) s.statements += sql.statements - before;
          s.out = feed.items.length;
        }
      }
    } finally {
      sql.restore();
    }
    await gc.flush();
    const { gcs } = gc;
    out("");
    out("page load: getFeed() as the feed router calls it (touch, no model call), in-memory PGlite,");
    out("30 decision cards of 20 changes + 2 invitations + failing trackers per user");
    const label = "warm"; // the same user's feed again and again: its cards are in the memo after the first load
    out(
      table(
        sampleRows(
          SIZES.map((n) => ({ label, n, sample: samples.get(n) as TSample })),
          gcs,
          true,
        ),
      ),
    );
    out(ratioLine("", samples, gcs));
  } finally {
    await t.close();
  }
}

export const feedBenchmark: TBenchmark = {
  name: "feed",
  description:
    "feed fast path at 500 vs 5000 items: in-process assembly and whole getFeed page loads (p50, p95, ratio)",
  flags: [ITERATIONS, LOADS],
  async run(args: TBenchArgs, out) {
    out("wall p50/p95 and CPU p50/p95 per run (CPU: this process, GC threads included; wall also counts time the");
    out("machine gave to others); 'with GC': runs a garbage collection landed in, which is most of a p95 here.");
    out("");
    const gc = watchGc();
    try {
      await inProcess(numberOption(args, ITERATIONS), gc, out);
      const loads = numberOption(args, LOADS);
      if (loads > 0) await pageLoads(loads, gc, out);
    } finally {
      gc.stop();
    }
  },
};
