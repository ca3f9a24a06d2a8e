import { detectListing } from "@/server/capabilities/web-scrape/listing";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";
import { fmt, numberOption, type TBenchArgs, type TBenchFlag, type TBenchmark, table } from "./harness";
import { countSql } from "./sql-counter";
import { median } from "./stats";

/**
 * A set beside single trackers (docs/sets.md): one tracker watching a listing page of N products as a set, and N
 * trackers each watching one product's page, over the same products. Each side is refreshed unchanged and then with
 * one product's price changed, alternating rounds so machine noise falls on both. Reported per pass: statements sent
 * to the database and CPU time of this process (the refresh and the embedded database both run in it). In-process
 * refreshes on the embedded database (`refreshTracker`, no HTTP server in between): a shortcut, labelled as such.
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

const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function listingPage(prices: readonly number[]): string {
  const cards = prices
    .map(
      (p, i) =>
        `<div class="product-card"><h3 class="product-title"><a href="/bench-set/p/${i}">Product ${i}</a></h3><span class="price">${usd(p)}</span></div>`,
    )
    .join("");
  return `<!doctype html><html><head><title>Catalogue</title></head><body><main><h1>All products</h1><div class="grid">${cards}</div></main><script nonce="${Math.random()}">x</script></body></html>`;
}

const productPage = (i: number, cents: number) =>
  `<!doctype html><html><head><title>Product ${i}</title></head><body><main><h1>Product ${i}</h1><span id="price">${usd(cents)}</span></main><script nonce="${Math.random()}">x</script></body></html>`;

const singleDefinition = {
  fields: [
    {
      name: "price",
      type: "money",
      currency: "USD",
      description: "Price",
      extractor: { kind: "css", selector: "#price" },
    },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
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
  const t = await createTestDb();
  const site: TFixtureSite = await startFixtureSite();
  try {
    const prices = Array.from({ length: n }, (_, i) => 1000 + i * 10);
    site.setPage("/bench-set/listing", { body: listingPage(prices) });
    prices.forEach((p, i) => void site.setPage(`/bench-set/p/${i}`, { body: productPage(i, p) }));
    const listingUrl = site.urlFor("/bench-set/listing");
    const detected = detectListing(listingPage(prices), listingUrl);
    if (!detected) throw new Error("the bench listing was not detected as a listing");
    const setTracker = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: listingUrl, listing: { ...detected.plan, maxPages: 1 } },
      definition: {
        fields: detected.plan.fields.map((f) =>
          f.type === "money"
            ? {
                name: f.name,
                type: "money",
                currency: "USD",
                description: f.name,
                extractor: { kind: "json_pointer", pointer: `/${f.name}` },
              }
            : {
                name: f.name,
                type: "string",
                description: f.name,
                extractor: { kind: "json_pointer", pointer: `/${f.name}` },
              },
        ),
        identityRule: { kind: "canonical_url" },
        materiality: Object.fromEntries(
          detected.plan.fields.map((f) => [
            f.name,
            f.type === "money" ? { kind: "numeric", relative: 0.05 } : { kind: "ignore" },
          ]),
        ),
        set: { missingAfter: 2, maxEntities: Math.max(200, n), rules: [{ kind: "appeared" }, { kind: "disappeared" }] },
      },
    });
    const singles: string[] = [];
    for (let i = 0; i < n; i++) {
      const { tracker } = await createActiveTracker(t.db, {
        capability: "web.scrape",
        capabilityInput: { url: site.urlFor(`/bench-set/p/${i}`) },
        definition: singleDefinition,
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
      site.setPage("/bench-set/listing", { body: listingPage(prices) });
      prices.forEach((p, i) => void site.setPage(`/bench-set/p/${i}`, { body: productPage(i, p) }));
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
      prices[moved] = Math.round((prices[moved] as number) * 0.8);
      site.setPage("/bench-set/listing", { body: listingPage(prices) });
      site.setPage(`/bench-set/p/${moved}`, { body: productPage(moved, prices[moved] as number) });
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
      `  ${n} products; in-process refreshes on the embedded database (a shortcut: no HTTP server), medians of ${rounds}`,
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
  description: "a listing of N products watched as one set beside N single trackers: statements and CPU per pass",
  flags: [ITEMS, ROUNDS],
  run,
};
