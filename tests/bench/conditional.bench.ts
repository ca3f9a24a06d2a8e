import { refreshTracker, type TRefreshResult } from "@/server/intelligence/refresh";
import type { TFixturePage } from "../fixtures/site/site";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";
import {
  assertDbAvailable,
  DB_FLAG,
  dbKinds,
  markResources,
  openBenchDb,
  resourcesSince,
  type TBenchDbKind,
} from "./bench-db";
import {
  choiceOption,
  fmt,
  numberOption,
  runPool,
  settleBeforePass,
  type TBenchArgs,
  type TBenchFlag,
  type TBenchmark,
  table,
} from "./harness";
import { makeBenchPage, renderBenchPage } from "./pages";
import { startSiteProcess } from "./site-process";
import { median } from "./stats";

/**
 * Conditional requests (docs/refresh.md "Conditional requests"): the same N unchanged 20–50 KB pages refreshed by
 * `refreshTracker()` twice over, side by side in one run, rounds interleaved (the side that goes first alternates) —
 * once served with an ETag and Last-Modified (so every refresh after the first sends them and is answered 304), once
 * without validators (every refresh downloads, parses and hashes the page, as before). In-process shortcut, labelled as
 * such: the refresh runs in this process (app CPU = process.cpuUsage(), its page worker threads included — and PGlite,
 * which runs in-process; on PostgreSQL (`--db postgres|both`) the backends' CPU is read from /proc and shown apart); the
 * fixture site runs in a process of its own, so its serving is not counted (shown apart too). Not the started server's
 * route (`npm start`), where a page costs more around the refresh, alike on both sides.
 */

const PAGES: TBenchFlag = {
  name: "conditional-pages",
  env: "BENCH_CONDITIONAL_PAGES",
  default: 200,
  min: 10,
  max: 5000,
  integer: true,
  description: "unchanged pages per side (each side has its own trackers over the same page bodies)",
};
const ROUNDS: TBenchFlag = {
  name: "conditional-rounds",
  env: "BENCH_CONDITIONAL_ROUNDS",
  default: 5,
  min: 1,
  max: 50,
  integer: true,
  description: "measured unchanged passes per side, interleaved (median reported)",
};
const CONCURRENCY = 10;
const LAST_MODIFIED = "Tue, 01 Dec 2026 10:00:00 GMT";

/** Code-only fields (no model call on any side): the price and the title by CSS. */
export const DEFINITION = {
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
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

type TSide = "304" | "200";
type TPass = {
  cpuMs: number;
  dbCpuMs: number;
  wallMs: number;
  bytes: number;
  statements: number;
  siteCpuMs: number;
};

async function run(args: TBenchArgs, out: (line: string) => void): Promise<void> {
  for (const kind of dbKinds(choiceOption(args, DB_FLAG))) await runOn(kind, args, out);
}

async function runOn(kind: TBenchDbKind, args: TBenchArgs, out: (line: string) => void): Promise<void> {
  const n = numberOption(args, PAGES);
  const rounds = numberOption(args, ROUNDS);
  const t = await openBenchDb(kind);
  const site = await startSiteProcess();
  // One local site stands for N sites: its per-host gate is opened wide for every benchmark (fixture-host.ts).
  try {
    const config = localCapabilityConfig([site.control.url]);
    const pages: Record<string, TFixturePage> = {};
    const trackers: Record<TSide, string[]> = { "304": [], "200": [] };
    for (let i = 0; i < n; i++) {
      const body = renderBenchPage(makeBenchPage(i, 23, { min: 20, max: 50 }));
      pages[`/etag/products/${i}`] = { body, etag: `"p${i}"`, lastModified: LAST_MODIFIED };
      pages[`/plain/products/${i}`] = { body };
    }
    await site.control.setPages(pages);
    for (const side of ["304", "200"] as const) {
      for (let i = 0; i < n; i++) {
        const { tracker } = await createActiveTracker(t.db, {
          capability: "web.scrape",
          capabilityInput: { url: site.control.urlFor(`/${side === "304" ? "etag" : "plain"}/products/${i}`) },
          definition: DEFINITION,
        });
        trackers[side].push(tracker.id);
      }
    }
    const refreshAll = (side: TSide) =>
      runPool(trackers[side], CONCURRENCY, (id) =>
        // As the scheduler refreshes (an unchanged check is counted on its day, not stored: docs/refresh.md).
        refreshTracker(t.db, id, {
          trigger: "cron",
          models: { filler: null, judge: null },
          capabilityConfig: config,
        }),
      );
    out(`  ${t.label}: ${n} pages per side, baselines (not measured)…`);
    for (const side of ["304", "200"] as const) {
      const { results } = await refreshAll(side);
      const bad = results.find((r) => r.outcome !== "baseline");
      if (bad) throw new Error(`a baseline refresh did not record a baseline: ${bad.summary}`);
    }

    const passes: Record<TSide, TPass[]> = { "304": [], "200": [] };
    const expected: Record<TSide, string> = { "304": "no change (not modified)", "200": "no change" };
    const measure = async (side: TSide) => {
      await settleBeforePass();
      const bytes0 = Number(
        (await t.db.runDailyStat.aggregate({ where: { trackerId: { in: trackers[side] } }, _sum: { bytes: true } }))
          ._sum.bytes ?? 0,
      );
      const statements0 = t.sql.statements;
      const site0 = site.cpuMs();
      const mark = await markResources(t);
      const { results, wallMs } = await refreshAll(side);
      const used = await resourcesSince(t, mark);
      const siteCpuMs = site.cpuMs() - site0;
      const statements = t.sql.statements - statements0;
      const wrong = results.find((r: TRefreshResult) => r.summary !== expected[side]);
      if (wrong) throw new Error(`an unchanged ${side} refresh answered "${wrong.summary}"`);
      // Bytes as the usage ledger counted them on the trackers' day (the decompressed bodies downloaded).
      const ledger = await t.db.runDailyStat.aggregate({
        where: { trackerId: { in: trackers[side] } },
        _sum: { bytes: true },
      });
      passes[side].push({
        cpuMs: used.cpuMs,
        dbCpuMs: used.serverCpuMs,
        wallMs,
        bytes: Number(ledger._sum.bytes ?? 0) - bytes0,
        statements,
        siteCpuMs,
      });
    };
    for (let r = 0; r < rounds; r++) {
      const order: TSide[] = r % 2 === 0 ? ["304", "200"] : ["200", "304"];
      for (const side of order) await measure(side);
    }

    const per = (side: TSide, pick: (p: TPass) => number) => median(passes[side].map(pick)) / n;
    const total = (p: TPass) => p.cpuMs + (Number.isFinite(p.dbCpuMs) ? p.dbCpuMs : 0);
    const row = (side: TSide, label: string) => [
      label,
      fmt(
        per(side, (p) => p.cpuMs),
        2,
      ),
      fmt(
        per(side, (p) => p.dbCpuMs),
        2,
      ),
      fmt(
        per(side, (p) => p.wallMs),
        2,
      ),
      fmt(per(side, (p) => p.bytes) / 1024, 1),
      fmt(
        per(side, (p) => p.statements),
        1,
      ),
      fmt(
        per(side, (p) => p.siteCpuMs),
        2,
      ),
    ];
    out(
      `  ---- ${t.label} · in-process shortcut: refreshTracker() ${CONCURRENCY} at a time, the same ${n} unchanged pages, medians of ${rounds} interleaved passes`,
    );
    out(
      table([
        [
          "unchanged pass",
          "app CPU ms/page",
          "DB CPU ms/page",
          "wall ms/page",
          "KB/page",
          "statements/page",
          "site CPU ms/page",
        ],
        row("304", "validators sent → 304"),
        row("200", "no validators → 200"),
      ]),
    );
    const appRatio = per("200", (p) => p.cpuMs) / per("304", (p) => p.cpuMs);
    const withDb =
      kind === "postgres" ? `, ${fmt(per("200", total) / per("304", total), 2)}× with PostgreSQL's backends` : "";
    out(
      `  200/304 CPU: ${fmt(appRatio, 2)}× by the app process${withDb} (goal ≥ 5×); ` +
        `bytes a page: ${fmt(
          per("304", (p) => p.bytes),
          0,
        )} against ${fmt(per("200", (p) => p.bytes) / 1024, 1)} KB`,
    );
    out(
      `  (app CPU: this process — the refresh and its page worker threads${kind === "pglite" ? ", and PGlite, which runs in it" : ""}; the fixture site's CPU is apart. Not measured through the started server's route.)`,
    );
  } finally {
    await site.close();
    await t.close();
  }
}

export const conditionalBenchmark: TBenchmark = {
  name: "conditional",
  description: "unchanged pages with validators (304) vs without (200): CPU and bytes per page, side by side",
  flags: [PAGES, ROUNDS, DB_FLAG],
  validate: (args) => assertDbAvailable(choiceOption(args, DB_FLAG), args),
  run,
};
