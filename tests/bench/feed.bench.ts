import { buildSpec } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";
import { EMPTY_ENHANCEMENT, type TEnhancementResult } from "@/server/enhancement/schema";
import { mergeEnhancement } from "@/server/feed/merge-enhancement";
import { memoryWords, postProcess } from "@/server/feed/post-process";
import { fmt, numberOption, type TBenchArgs, type TBenchFlag, type TBenchmark, table } from "./harness";
import { percentile } from "./stats";

/**
 * The feed's fast path: rule-based post-processors (dedup, score, affinity, time of day, group) plus
 * merging the cached enhancement and ordering, for 50 / 500 / 5000 items. The design budget is < 10 ms
 * for a few hundred items; this reports p50/p95 and never asserts.
 */
function makeItems(n: number, now: Date): TFeedItem[] {
  const relevance = ["imminent", "upcoming", "ambient"] as const;
  return Array.from({ length: n }, (_, i) => ({
    id: `change:${i}`,
    sourceId: i % 5 === 0 ? "calendar" : "trackers",
    type: i % 5 === 0 ? "calendar-event" : "tracker-change",
    timestamp: new Date(now.getTime() - i * 60_000),
    data: {
      trackerId: `t${i % Math.max(1, Math.floor(n / 4))}`,
      decision: `Decision ${i % 17} about pricing and cycling routes`,
      start: new Date(now.getTime() + (i % 48) * 3_600_000).toISOString(),
      delta: { price: { from: i, to: i + 1 } },
    },
    signals: { urgency: (i % 10) / 10, timeRelevance: relevance[i % 3] as (typeof relevance)[number] },
    ui: buildSpec("Stack", {}, [
      { key: "h", type: "Heading", props: { text: `Item ${i}` } },
      { key: "why", type: "Slot", props: { name: "why" } },
    ]),
    slots: { why: { description: "why it matters", content: null } },
  }));
}

function makeEnhancement(items: TFeedItem[]): TEnhancementResult {
  const r: TEnhancementResult = {
    ...EMPTY_ENHANCEMENT,
    slotFills: {},
    rankingHints: {},
    suppress: [],
    syntheticItems: [],
  };
  items.forEach((item, i) => {
    if (i % 2 === 0) r.slotFills[item.id] = { why: `Because ${i}` };
    if (i % 7 === 0) r.rankingHints[item.id] = 0.2;
    if (i % 11 === 0) r.suppress.push(item.id);
  });
  r.syntheticItems.push({ id: "synthetic:brief", type: "briefing", ui: buildSpec("Text", { text: "Brief" }, []) });
  return r;
}

const ITERATIONS: TBenchFlag = {
  name: "feed-iterations",
  env: "BENCH_FEED_ITERATIONS",
  default: 200,
  min: 5,
  max: 100_000,
  integer: true,
  description: "timed runs per item count (a tenth of them for 5000 items)",
};

export const feedBenchmark: TBenchmark = {
  name: "feed",
  description: "feed fast path: post-processing + cached-enhancement merge for 50/500/5000 items (p50, p95)",
  flags: [ITERATIONS],
  async run(args: TBenchArgs, out) {
    const iterations = numberOption(args, ITERATIONS);
    const now = new Date("2026-11-29T08:30:00Z");
    const words = memoryWords("I cycle to work; we care about pricing");
    const rows: string[][] = [["items", "iterations", "p50 ms", "p95 ms", "items out"]];
    for (const n of [50, 500, 5000]) {
      const items = makeItems(n, now);
      const enhancement = makeEnhancement(items);
      const runs = n >= 5000 ? Math.max(5, Math.floor(iterations / 10)) : iterations;
      const times: number[] = [];
      let outCount = 0;
      for (let i = 0; i < runs + 3; i++) {
        const t0 = performance.now();
        const merged = mergeEnhancement(postProcess(items, { now, memoryWords: words }), enhancement, now);
        const dt = performance.now() - t0;
        if (i >= 3) times.push(dt); // first runs warm the JIT
        outCount = merged.length;
      }
      rows.push([
        String(n),
        String(runs),
        fmt(percentile(times, 50), 2),
        fmt(percentile(times, 95), 2),
        String(outCount),
      ]);
    }
    out("feed fast path (post-process + merge + order), in-process, no I/O");
    out(table(rows));
  },
};
