import { refreshTracker } from "@/server/intelligence/refresh";
import { replayTracker, saveDraftDefinition } from "@/server/trackers";
import { startFixtureSite } from "../fixtures/site/site";
import { createTestDb } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";
import { fmt, numberOption, type TBenchArgs, type TBenchFlag, type TBenchmark, table } from "./harness";
import { makeBenchPage, renderBenchPage } from "./pages";
import { median } from "./stats";

/**
 * Replay (docs/replay.md): N changed refreshes of one tracker over a 20–50 KB bench page whose price moves every time
 * (each stores a capture), then replays over those N captures — the locked definition and a stricter draft —
 * with code-only rules (both fields have CSS extractors, the price a numeric rule, the tagline-like heading none:
 * stored verdicts stand in), in the same process on the same embedded database. Reported: ms per changed refresh
 * beside ms per replayed capture, their ratio, and the bytes a capture stores against the page's size.
 */

const CAPTURES: TBenchFlag = {
  name: "captures",
  env: "BENCH_REPLAY_CAPTURES",
  default: 1000,
  min: 10,
  max: 20_000,
  integer: true,
  description: "changed refreshes recorded, then replayed (default 1000)",
};
const ROUNDS: TBenchFlag = {
  name: "replay-rounds",
  env: "BENCH_REPLAY_ROUNDS",
  default: 3,
  min: 1,
  max: 20,
  integer: true,
  description: "replays of each definition over all captures (median reported)",
};

const definitionWith = (relative: number) => ({
  fields: [
    {
      name: "price",
      type: "money",
      currency: "USD",
      description: "Pro plan monthly price",
      extractor: { kind: "css", selector: "#price" },
    },
    { name: "title", type: "string", description: "The page title", extractor: { kind: "css", selector: "title" } },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative } },
});

async function run(args: TBenchArgs, out: (line: string) => void): Promise<void> {
  const n = numberOption(args, CAPTURES);
  const rounds = numberOption(args, ROUNDS);
  const t = await createTestDb();
  const site = await startFixtureSite();
  try {
    const page = makeBenchPage(1, 18, { min: 20, max: 50 });
    const { tracker, userId } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: `${site.url}${page.path}` },
      definition: definitionWith(0.05),
    });
    const config = localCapabilityConfig([site.url]);
    const moves = [0.02, -0.03, 0.07, -0.01, -0.12, 0.04, 0.09, -0.06, 0.03, -0.02, 0.05, -0.08];
    let pageBytes = 0;
    out(`  recording ${n} changed refreshes…`);
    const refreshStarted = performance.now();
    for (let i = 0; i < n; i++) {
      // Price moves every step, drifting back towards ~100 so it never runs away.
      const drift = page.price > 150 ? -0.05 : page.price < 60 ? 0.05 : 0;
      page.price = Math.max(1, Math.round(page.price * (1 + (moves[i % moves.length] as number) + drift) * 100) / 100);
      const body = renderBenchPage(page);
      pageBytes += Buffer.byteLength(body);
      site.setPage(page.path, { body });
      const result = await refreshTracker(t.db, tracker.id, {
        trigger: "manual",
        models: { filler: null, judge: null },
        capabilityConfig: config,
      });
      if (result.status !== "completed") throw new Error(`refresh ${i} did not complete: ${result.summary}`);
    }
    const refreshMs = (performance.now() - refreshStarted) / n;
    const stored = await t.db.capture.aggregate({
      where: { trackerId: tracker.id },
      _count: { _all: true },
      _sum: { storedBytes: true, rawBytes: true },
    });

    const replayOnce = async (definition: "locked" | "draft") => {
      const started = performance.now();
      const result = await replayTracker(
        t.db,
        { userId, trackerId: tracker.id, definition, modelBudget: 0, planOnly: false },
        {},
        { models: { filler: null, judge: null } },
      );
      return { ms: performance.now() - started, result };
    };
    const locked: number[] = [];
    const stricter: number[] = [];
    type TResult = Awaited<ReturnType<typeof replayOnce>>["result"];
    let lockedResult: TResult | null = null as TResult | null;
    let stricterResult: TResult | null = null as TResult | null;
    await saveDraftDefinition(t.db, { userId, trackerId: tracker.id, definition: definitionWith(0.1) });
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first, so warm-up and machine noise fall on both alike.
      const order: ("locked" | "draft")[] = r % 2 === 0 ? ["locked", "draft"] : ["draft", "locked"];
      for (const which of order) {
        const { ms, result } = await replayOnce(which);
        if (which === "locked") {
          locked.push(ms);
          lockedResult = result;
        } else {
          stricter.push(ms);
          stricterResult = result;
        }
      }
    }
    const perCapture = (ms: number[]) => median(ms) / n;
    out(
      table([
        ["", "ms", "× a changed refresh"],
        ["changed refresh (fetch, parse, fill, judge, write, capture)", fmt(refreshMs, 2), "1.00"],
        ["replay per capture, locked definition", fmt(perCapture(locked), 3), fmt(perCapture(locked) / refreshMs, 3)],
        ["replay per capture, stricter draft", fmt(perCapture(stricter), 3), fmt(perCapture(stricter) / refreshMs, 3)],
      ]),
    );
    out("");
    out(
      `  locked replay reproduces the record: ${lockedResult && lockedResult.added.length + lockedResult.removed.length + lockedResult.changed.length === 0 ? "yes" : "NO"} · model calls: ${(lockedResult?.modelCalls ?? 0) + (stricterResult?.modelCalls ?? 0)}`,
    );
    out(`  stricter draft: ${stricterResult?.summary ?? "–"}`);
    const storedBytes = stored._sum.storedBytes ?? 0;
    out(
      `  captures: ${stored._count._all} · stored ${fmt(storedBytes / Math.max(1, stored._count._all) / 1024, 1)} KB each ` +
        `(canonical JSON ${fmt((stored._sum.rawBytes ?? 0) / Math.max(1, stored._count._all) / 1024, 1)} KB, page ` +
        `${fmt(pageBytes / n / 1024, 1)} KB) · ${fmt(storedBytes / Math.max(1, pageBytes), 3)} of the pages' bytes`,
    );
  } finally {
    await site.close();
    await t.close();
  }
}

export const replayBenchmark: TBenchmark = {
  name: "replay",
  description: "replay of N stored captures (code-only rules) beside the changed refreshes that stored them",
  flags: [CAPTURES, ROUNDS],
  run,
};
