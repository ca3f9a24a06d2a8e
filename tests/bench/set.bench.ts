import { detectListing } from "@/server/capabilities/web-scrape/listing";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";
import {
  choiceOption,
  fmt,
  numberOption,
  type TBenchArgs,
  type TBenchChoiceFlag,
  type TBenchFlag,
  type TBenchmark,
  table,
} from "./harness";
import {
  dropPrice,
  LISTING_PATH,
  listingPage,
  productPath,
  SINGLE_DEFINITION,
  serveAll,
  setTrackerInput,
  startPrices,
} from "./set-pages";
import { ROUTE_DB_FLAG, ROUTE_FLAG, routeDbKinds, runSetThroughRoute } from "./set-route";
import { countSql } from "./sql-counter";
import { median } from "./stats";

/**
 * A set beside single trackers (docs/sets.md): one tracker watching a listing page of N products as a set, and N
 * trackers each watching one product's page, over the same products (set-pages.ts). Each side is refreshed unchanged
 * and then with one product's price changed, alternating rounds so machine noise falls on both. Two sections:
 *
 *   route       the path users take (set-route.ts): `npm start` on a throw-away PostgreSQL database (or PGlite on
 *               disk), both sides' trackers made through the public API, refreshed by the cron route and by Refresh
 *               now; statements at the wire, CPU of the app's process tree and of the PostgreSQL backends.
 *   in-process  `refreshTracker` called in this process on the in-memory embedded database, statements counted at the
 *               driver, CPU of this process (the refresh, the embedded database and the fixture site): a shortcut,
 *               labelled as such.
 */

const ITEMS: TBenchFlag = {
  name: "set-items",
  env: "BENCH_SET_ITEMS",
  default: 100,
  min: 5,
  max: 2000,
  integer: true,
  description: "products on the listing, and single trackers beside it (default 100)",
};
const ROUNDS: TBenchFlag = {
  name: "set-rounds",
  env: "BENCH_SET_ROUNDS",
  default: 5,
  min: 1,
  max: 50,
  integer: true,
  description: "rounds of (unchanged, one changed) per side; medians reported",
};
const SECTIONS: TBenchChoiceFlag<"both" | "route" | "in-process"> = {
  name: "set-path",
  env: "BENCH_SET_PATH",
  default: "both",
  choices: ["both", "route", "in-process"],
  description:
    "route: the started app's routes (npm start, public API, cron / Refresh now); in-process: refreshTracker in this process (a shortcut); both",
};

type TPass = { statements: number; cpuMs: number; wallMs: number };

async function measure(t: TTestDb, work: () => Promise<void>): Promise<TPass> {
  const counter = countSql(t.pglite);
  const cpu = process.cpuUsage();
  const started = performance.now();
  try {
    await work();
  } finally {
    counter.restore();
  }
  const used = process.cpuUsage(cpu);
  return {
    statements: counter.statements,
    cpuMs: (used.user + used.system) / 1000,
    wallMs: performance.now() - started,
  };
}

async function run(args: TBenchArgs, out: (line: string) => void): Promise<void> {
  const n = numberOption(args, ITEMS);
  const rounds = numberOption(args, ROUNDS);
  const sections = choiceOption(args, SECTIONS);
  out(`  ${n} products on one listing page, watched as one set beside ${n} single trackers on their own pages`);
  if (sections !== "in-process") {
    const ok = await runSetThroughRoute(args, n, rounds, out);
    if (!ok) {
      out("  ! some refreshes did not complete as expected: the route figures above mean nothing");
      process.exitCode = 1;
    }
  }
  if (sections !== "route") {
    out("");
    await runInProcess(n, rounds, out);
  }
}

async function runInProcess(n: number, rounds: number, out: (line: string) => void): Promise<void> {
  const t = await createTestDb();
  const site: TFixtureSite = await startFixtureSite();
  try {
    const prices = startPrices(n);
    serveAll(site, prices);
    const listingUrl = site.urlFor(LISTING_PATH);
    const detected = detectListing(listingPage(prices), listingUrl);
    if (!detected) throw new Error("the bench listing was not detected as a listing");
    const setTracker = await createActiveTracker(t.db, {
      capability: "web.scrape",
      ...setTrackerInput(listingUrl, detected.plan, n),
    });
    const singles: string[] = [];
    for (let i = 0; i < n; i++) {
      const { tracker } = await createActiveTracker(t.db, {
        capability: "web.scrape",
        capabilityInput: { url: site.urlFor(productPath(i)) },
        definition: SINGLE_DEFINITION,
      });
      singles.push(tracker.id);
    }
    const options: TRefreshOptions = {
      trigger: "manual",
      models: { filler: null, judge: null },
      capabilityConfig: localCapabilityConfig([site.url]),
    };
    const refresh = async (id: string, expect: string[]) => {
      const r = await refreshTracker(t.db, id, options);
      if (r.status !== "completed" || !expect.includes(r.outcome ?? ""))
        throw new Error(`bench refresh: expected ${expect.join("/")}, got ${r.status}/${r.outcome}: ${r.summary}`);
    };
    // Baselines, not measured.
    await refresh(setTracker.tracker.id, ["baseline"]);
    for (const id of singles) await refresh(id, ["baseline"]);

    const results = {
      setSame: [] as TPass[],
      setOne: [] as TPass[],
      singleSame: [] as TPass[],
      singleOne: [] as TPass[],
    };
    for (let r = 0; r < rounds; r++) {
      const moved = (r * 7) % n;
      // Unchanged: the pages are served again byte-different (a new nonce), the same content.
      serveAll(site, prices);
      const sides = [
        async () => results.setSame.push(await measure(t, () => refresh(setTracker.tracker.id, ["unchanged"]))),
        async () =>
          results.singleSame.push(
            await measure(t, async () => {
              for (const id of singles) await refresh(id, ["unchanged"]);
            }),
          ),
      ];
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) await side();
      // One product's price drops 20 %: material on both sides.
      dropPrice(site, prices, moved);
      const changedSides = [
        async () => results.setOne.push(await measure(t, () => refresh(setTracker.tracker.id, ["material"]))),
        async () =>
          results.singleOne.push(
            await measure(t, async () => {
              for (const id of singles) await refresh(id, ["unchanged", "material"]);
            }),
          ),
      ];
      for (const side of r % 2 === 0 ? changedSides : [...changedSides].reverse()) await side();
    }
    const m = (passes: TPass[], key: keyof TPass) => median(passes.map((p) => p[key]));
    const row = (label: string, passes: TPass[], refreshes: number) => [
      label,
      fmt(m(passes, "statements"), 0),
      fmt(m(passes, "statements") / refreshes, 2),
      fmt(m(passes, "cpuMs"), 1),
      fmt(m(passes, "wallMs"), 1),
    ];
    out(
      `  in-process (a shortcut: refreshTracker called in this process, no HTTP server, in-memory embedded database; CPU = this process, which also serves the fixture pages), medians of ${rounds}`,
    );
    out(
      table([
        ["pass over the products", "statements", "per refresh", "CPU ms", "wall ms"],
        row("set tracker, unchanged (1 refresh)", results.setSame, 1),
        row("set tracker, one price changed (1 refresh)", results.setOne, 1),
        row(`${n} single trackers, unchanged (${n} refreshes)`, results.singleSame, n),
        row(`${n} single trackers, one price changed (${n} refreshes)`, results.singleOne, n),
      ]),
    );
    out(
      `  set ÷ singles, CPU: unchanged ${fmt(m(results.setSame, "cpuMs") / m(results.singleSame, "cpuMs"), 3)} · one changed ${fmt(m(results.setOne, "cpuMs") / m(results.singleOne, "cpuMs"), 3)}`,
    );
  } finally {
    await site.close();
    await t.close();
  }
}

export const setBenchmark: TBenchmark = {
  name: "set",
  description:
    "a listing of N products watched as one set beside N single trackers: statements and CPU per pass, through the started app's routes and in-process",
  flags: [ITEMS, ROUNDS, SECTIONS, ROUTE_FLAG, ROUTE_DB_FLAG],
  validate: (args) => {
    if (choiceOption(args, SECTIONS) !== "in-process") routeDbKinds(args);
  },
  run,
};
