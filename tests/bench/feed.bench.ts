import type { TFeedItem } from "@/contracts/feed-item";
import type { TDb } from "@/server/db";
import { parseStoredEnhancement } from "@/server/enhancement/enhancement-manager";
import { assembleFeed, getFeed } from "@/server/feed/get-feed";
import { memoryWords } from "@/server/feed/post-process";
import { eventItem } from "@/server/feed/sources/calendar-source";
import { changeItem, failingItem } from "@/server/feed/sources/trackers-source";
import { updateUserSettings } from "@/server/settings/user-settings";
import { createTestDb } from "../helpers/db";
import { fmt, numberOption, type TBenchArgs, type TBenchFlag, type TBenchmark, table } from "./harness";
import { countSql } from "./sql-counter";
import { percentile } from "./stats";

/**
 * The feed's fast path (DESIGN §6) at 500 and 5000 items, side by side in one run, rounds alternating which
 * size goes first, so the 5000/500 ratio (10 = linear) is read off the same machine state:
 * 1. in-process — exactly what `getFeed` does between the sources and the response: parse the stored
 *    enhancement (`parseStoredEnhancement`) and `assembleFeed` (post-processors, the catalog check of every
 *    card, the merge, the ordering). The cards come from the sources' own builders, rebuilt before every
 *    (untimed) run as a page load rebuilds them, so nothing can be carried over between runs by identity.
 * 2. page load — `getFeed` as the feed router calls it (touch, no model call) on in-memory PGlite: the SQL,
 *    the sources and the in-process part. The enhancement it schedules runs after the response and is left out.
 * p50/p95 are reported and never asserted.
 */

const SIZES = [500, 5000] as const;
const MEMORY = "I cycle to work; we care about pricing";
const NOW = new Date("2026-11-29T08:30:00Z");

/** A mix like a busy feed: 80 % change cards (1–3 rows, groups of ~4 per tracker), 15 % failing trackers, 5 % events. */
function makeItems(n: number, now: Date): TFeedItem[] {
  const trackers = Math.max(1, Math.floor(n / 4));
  return Array.from({ length: n }, (_, i) => {
    const timestamp = new Date(now.getTime() - i * 60_000);
    const trackerId = `t${i % trackers}`;
    const decision = `Decision ${i % 17}: ${i % 3 === 0 ? "is their pricing below ours" : "is the venue open"} (${i})`;
    if (i % 20 === 0) {
      const start = new Date(now.getTime() + (i % 48) * 3_600_000);
      const end = new Date(start.getTime() + 3_600_000);
      return eventItem(
        {
          uid: `event-${i}`,
          recurrenceId: null,
          summary: `Ride ${i}`,
          location: "Depot",
          allDay: false,
          start: start.toISOString(),
          end: end.toISOString(),
        },
        start,
        end,
        now,
      );
    }
    if (i % 20 <= 3) {
      return failingItem({
        id: `f${i}`,
        decision,
        lastError: "The page answered HTTP 500.",
        consecutiveFailures: 3 + (i % 5),
        updatedAt: timestamp,
      });
    }
    const delta: Record<string, { from: unknown; to: unknown }> = { price: { from: 10 + i, to: 9 + i } };
    if (i % 2) delta.availability = { from: "in stock", to: "out of stock" };
    if (i % 3 === 1) delta.rating = { from: 4.4, to: 4.1 };
    return changeItem({
      id: `c${i}`,
      capturedAt: timestamp,
      delta,
      materiality: i % 4 ? "material" : "notable",
      tracker: { id: trackerId, decision },
      entity: { entityKey: `entity-${i}` },
    });
  });
}

/** The stored enhancement as the database hands it back (plain JSON): fills for half the slotted items. */
function makeStoredEnhancement(items: TFeedItem[]): unknown {
  const slotFills: Record<string, Record<string, string>> = {};
  const rankingHints: Record<string, number> = {};
  const suppress: string[] = [];
  items.forEach((item, i) => {
    if (item.slots && i % 2 === 0) {
      slotFills[item.id] = Object.fromEntries(Object.keys(item.slots).map((name) => [name, `Because ${i}.`]));
    }
    if (i % 7 === 0) rankingHints[item.id] = 0.2;
    if (i % 11 === 0) suppress.push(item.id);
  });
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
  default: 200,
  min: 5,
  max: 100_000,
  integer: true,
  description: "in-process rounds; each round times one run at 500 and one at 5000 items",
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

type TSample = { times: number[]; out: number; statements: number };

function sizeRows(samples: Map<number, TSample>, withSql: boolean): string[][] {
  const rows: string[][] = [
    ["items", "runs", "p50 ms", "p95 ms", "µs/item p50", "items out", ...(withSql ? ["SQL/load"] : [])],
  ];
  for (const n of SIZES) {
    const s = samples.get(n) as TSample;
    const p50 = percentile(s.times, 50);
    rows.push([
      String(n),
      String(s.times.length),
      fmt(p50, 2),
      fmt(percentile(s.times, 95), 2),
      fmt((p50 * 1000) / n, 2),
      String(s.out),
      ...(withSql ? [fmt(s.statements / s.times.length, 1)] : []),
    ]);
  }
  return rows;
}

function ratioLine(samples: Map<number, TSample>): string {
  const [small, big] = SIZES.map((n) => samples.get(n) as TSample) as [TSample, TSample];
  const r = (p: number) => fmt(percentile(big.times, p) / percentile(small.times, p), 1);
  return `  ${SIZES[1]}/${SIZES[0]}: p50 ×${r(50)}, p95 ×${r(95)} (×${SIZES[1] / SIZES[0]} = linear)`;
}

async function inProcess(rounds: number, out: (line: string) => void): Promise<void> {
  const ctx = { now: NOW, memoryWords: memoryWords(MEMORY) };
  const samples = new Map<number, TSample>(SIZES.map((n) => [n, { times: [], out: 0, statements: 0 }]));
  const warmUp = 3;
  for (let round = 0; round < rounds + warmUp; round++) {
    const order = round % 2 ? [...SIZES].reverse() : SIZES;
    for (const n of order) {
      const raw = makeItems(n, NOW);
      const stored = makeStoredEnhancement(raw);
      const t0 = performance.now();
      const { items } = assembleFeed(raw, parseStoredEnhancement(stored, "bench"), ctx);
      const dt = performance.now() - t0;
      const s = samples.get(n) as TSample;
      if (round >= warmUp) s.times.push(dt); // the first rounds warm the JIT
      s.out = items.length;
    }
  }
  out(
    "feed fast path, in-process: parse the cached enhancement + assembleFeed (post-process, card check, merge, order)",
  );
  out(table(sizeRows(samples, false)));
  out(ratioLine(samples));
}

/** `count` items for one user: 50 change cards (the trackers source's cap) and the rest failing trackers. */
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
  const changes = 50;
  await db.tracker.createMany({
    data: Array.from({ length: count - changes }, (_, i) => ({
      userId: user.id,
      decision: `Decision ${i}: ${i % 3 === 0 ? "is their pricing below ours" : "is the venue open"}`,
      capability: "web.scrape",
      capabilityInput: { url: `https://shop.example/${i}` },
      status: "active" as const,
      consecutiveFailures: 3 + (i % 5),
      lastError: "The page answered HTTP 500.",
    })),
  });
  const tracker = await db.tracker.create({
    data: {
      userId: user.id,
      decision: "Should we match Acme's price?",
      capability: "web.scrape",
      capabilityInput: { url: "https://shop.example/acme" },
      status: "active",
    },
  });
  const run = await db.refreshRun.create({ data: { trackerId: tracker.id, trigger: "manual", status: "completed" } });
  await db.trackedEntity.createMany({
    data: Array.from({ length: changes }, (_, i) => ({ trackerId: tracker.id, entityKey: `entity-${i}` })),
  });
  const entities = await db.trackedEntity.findMany({ where: { trackerId: tracker.id }, orderBy: { entityKey: "asc" } });
  await db.entityChange.createMany({
    data: entities.map((e, i) => ({
      entityId: e.id,
      trackerId: tracker.id,
      runId: run.id,
      capturedAt: new Date(NOW.getTime() - (i + 1) * 60_000),
      delta: { price: { from: 49 + i, to: 39 + i } },
      materiality: i % 4 ? ("material" as const) : ("notable" as const),
      decisions: {},
      definitionVersion: 1,
    })),
  });
  const { items } = await getFeed(db, user.id, { now: NOW, enhance: false });
  await db.feedEnhancement.create({
    data: { userId: user.id, inputHash: "bench", result: makeStoredEnhancement(items) as object },
  });
  return user.id;
}

async function pageLoads(loads: number, out: (line: string) => void): Promise<void> {
  const t = await createTestDb();
  try {
    const users = new Map<number, string>();
    for (const n of SIZES) users.set(n, await seedUser(t.db, `feed-${n}@bench.example`, n));
    const sql = countSql(t.pglite);
    const samples = new Map<number, TSample>(SIZES.map((n) => [n, { times: [], out: 0, statements: 0 }]));
    try {
      const warmUp = 2;
      for (let round = 0; round < loads + warmUp; round++) {
        const order = round % 2 ? [...SIZES].reverse() : SIZES;
        for (const n of order) {
          const before = sql.statements;
          const t0 = performance.now();
          const feed = await getFeed(t.db, users.get(n) as string, { now: NOW, touch: true, enhance: false });
          const dt = performance.now() - t0;
          const s = samples.get(n) as TSample;
          if (round >= warmUp) {
            s.times.push(dt);
            s.statements += sql.statements - before;
          }
          s.out = feed.items.length;
        }
      }
    } finally {
      sql.restore();
    }
    out("");
    out("page load: getFeed() as the feed router calls it (touch, no model call), in-memory PGlite,");
    out("50 change cards + failing trackers per user");
    out(table(sizeRows(samples, true)));
    out(ratioLine(samples));
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
    await inProcess(numberOption(args, ITERATIONS), out);
    const loads = numberOption(args, LOADS);
    if (loads > 0) await pageLoads(loads, out);
  },
};
