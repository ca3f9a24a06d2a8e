import os from "node:os";
import type { TDb } from "@/server/db";
import { runDueRefreshes, type TRunDueSummary } from "@/server/triggers";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createActiveTracker, fixtureModel, localCapabilityConfig } from "../helpers/trackers";
import {
  assertDbAvailable,
  DB_FLAG,
  dbKinds,
  markResources,
  openBenchDb,
  resourcesSince,
  STATEMENTS_FLAG,
  type TBenchDb,
  type TBenchDbKind,
  type TResources,
} from "./bench-db";
import { BENCH_DECISION, BENCH_DEFINITION, fillRecordings, quietLogger } from "./bench-trackers";
import { choiceOption, fmt, numberOption, type TBenchArgs, type TBenchFlag, type TBenchmark, table } from "./harness";
import { makeBenchPage, renderBenchPage, type TBenchPage } from "./pages";
import { max, median, min, sum } from "./stats";
import { prepareUrlwatch, type TUrlwatch, type TUrlwatchRun } from "./urlwatch";

/**
 * Peer benchmark: Bellwether against urlwatch checking the same N unchanged pages of the local fixture
 * site, the same number at a time, in interleaved rounds (the order rotates every round).
 *
 *   Bellwether  runDueRefreshes(): the claim loop the cron route and the worker run (claim a batch of
 *               due trackers, refreshTracker each), with a simulated clock one day further each round
 *               so every tracker is due exactly once per round.
 *   urlwatch    `urlwatch` over a urls.yaml of the same pages, each filtered with `css: main` +
 *               `html2text` (the page's content as text: the usual urlwatch setup for a page whose head
 *               and scripts change on every load), comparing with its cache.
 *
 * Every round serves every page again with fresh nonces and build stamps (byte-different, same content),
 * so both sides must fetch, parse and find "unchanged". Reported: pages/s per side (median of rounds),
 * Bellwether/urlwatch per round (paired, median), CPU per page, statements per page on the cron path.
 */

const DAY_MS = 24 * 60 * 60_000;

type TOptions = { pages: number; rounds: number; concurrency: number };

const FLAGS = {
  pages: {
    name: "pages",
    env: "BENCH_PEER_PAGES",
    default: 200,
    min: 1,
    max: 10_000,
    integer: true,
    description: "fixture pages both sides check each round",
  },
  rounds: {
    name: "rounds",
    env: "BENCH_PEER_ROUNDS",
    default: 5,
    min: 1,
    max: 1000,
    integer: true,
    description: "measured rounds (after a baseline and a warm-up round)",
  },
  concurrency: {
    name: "concurrency",
    env: "BENCH_PEER_CONCURRENCY",
    default: 10,
    min: 1,
    max: 1000,
    integer: true,
    description: "pages in flight per side (urlwatch: its worker threads)",
  },
} satisfies Record<keyof TOptions, TBenchFlag>;

function readOptions(args: TBenchArgs) {
  const o = Object.fromEntries(Object.entries(FLAGS).map(([key, flag]) => [key, numberOption(args, flag)])) as TOptions;
  return { ...o, db: choiceOption(args, DB_FLAG), statements: choiceOption(args, STATEMENTS_FLAG) };
}

type TBellwetherSide = {
  kind: TBenchDbKind;
  bench: TBenchDb;
  models: TModelServer;
  warnings: string[];
};

type TSideRound = {
  wallMs: number;
  /** Pages the fixture site served during this side's turn. */
  fetched: number;
  /** This process's CPU during the turn (for urlwatch: serving its requests). */
  cpuMs: number;
  outcomes: Record<string, number>;
  bellwether?: { resources: TResources; statements: number; control: number };
  urlwatch?: TUrlwatchRun;
};

async function createTrackers(db: TDb, site: TFixtureSite, pages: TBenchPage[]): Promise<void> {
  const { id: userId } = await ensureLocalUser(db);
  for (const page of pages) {
    await createActiveTracker(db, {
      userId,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(page.path) },
      definition: BENCH_DEFINITION,
      decision: BENCH_DECISION,
    });
  }
}

async function bellwetherRound(
  side: TBellwetherSide,
  site: TFixtureSite,
  clock: Date,
  o: TOptions,
): Promise<TSideRound> {
  const { bench } = side;
  const model = fixtureModel(side.models.url);
  const log = quietLogger(side.warnings);
  const mark = await markResources(bench);
  const s0 = bench.sql.statements;
  const c0 = bench.sql.control;
  const fetched0 = site.requests.length;
  const started = performance.now();
  const summary: TRunDueSummary = await runDueRefreshes(bench.db, {
    trigger: "cron",
    concurrency: o.concurrency,
    budgetMs: 30 * 60_000,
    maxTrackers: o.pages,
    now: () => clock,
    log,
    refreshOptions: {
      models: { filler: model, judge: model },
      capabilityConfig: localCapabilityConfig([site.url]),
      maxModelRetries: 0,
      now: () => clock,
    },
  });
  const wallMs = performance.now() - started;
  const statements = bench.sql.statements - s0;
  const control = bench.sql.control - c0;
  const fetched = site.requests.length - fetched0;
  const resources = await resourcesSince(bench, mark);
  const outcomes = { ...summary.outcomes };
  if (summary.errors) outcomes.error = summary.errors;
  return { wallMs, fetched, cpuMs: resources.cpuMs, outcomes, bellwether: { resources, statements, control } };
}

async function urlwatchRound(urlwatch: TUrlwatch, site: TFixtureSite): Promise<TSideRound> {
  const fetched0 = site.requests.length;
  const cpu0 = process.cpuUsage();
  const run = await urlwatch.run();
  const cpu = process.cpuUsage(cpu0);
  return {
    wallMs: run.wallMs,
    fetched: site.requests.length - fetched0,
    cpuMs: (cpu.user + cpu.system) / 1000,
    outcomes: run.verbs,
    urlwatch: run,
  };
}

const describeOutcomes = (outcomes: Record<string, number>) =>
  Object.entries(outcomes)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(", ") || "nothing";

export async function runPeerBench(args: TBenchArgs, out: (line: string) => void): Promise<void> {
  const o = readOptions(args);
  const kinds = dbKinds(o.db);
  const seed = 42;
  const pages = Array.from({ length: o.pages }, (_, i) => makeBenchPage(i, seed, { min: 20, max: 50 }));
  out(
    `peer: ${o.pages} unchanged fixture pages (20–50 KB, fresh nonces every round), ${o.concurrency} at a time per side, ` +
      `${o.rounds} measured rounds after a baseline and a warm-up round, order rotating; hot statements ${o.statements}`,
  );
  out(
    `  Bellwether = runDueRefreshes() (the cron/worker claim loop → refreshTracker) on ${kinds.join(", ")}; ` +
      "urlwatch = the installed urlwatch with `css: main` + `html2text` per page",
  );

  let site: TFixtureSite | undefined;
  let urlwatch: TUrlwatch | undefined;
  const sides: TBellwetherSide[] = [];
  try {
    site = await startFixtureSite();
    const serve = () => {
      for (const page of pages) site?.setPage(page.path, { body: renderBenchPage(page) });
    };
    serve();
    const prepared = await prepareUrlwatch(
      pages.map((p) => site?.urlFor(p.path) ?? ""),
      // BENCH_URLWATCH: another urlwatch (e.g. a newer one in a virtualenv), by path or name.
      { concurrency: o.concurrency, tmpRoot: os.tmpdir(), executable: args.env.BENCH_URLWATCH },
    );
    if ("skipped" in prepared) {
      out(`  urlwatch skipped: ${prepared.skipped}. Bellwether's side runs alone, without a ratio.`);
    } else {
      urlwatch = prepared;
      out(`  urlwatch ${urlwatch.version}: ${urlwatch.where}; its worker pool set to ${o.concurrency}`);
    }
    for (const kind of kinds) {
      const [bench, models] = await Promise.all([
        openBenchDb(kind, o.statements),
        startModelServer({ recordings: fillRecordings(0) }),
      ]);
      sides.push({ kind, bench, models, warnings: [] });
      await createTrackers(bench.db, site, pages);
      out(`  ${kind}: ${bench.label}, ${o.pages} trackers`);
    }

    type TSideName = "urlwatch" | TBenchDbKind;
    const names: TSideName[] = [...(urlwatch ? (["urlwatch"] as const) : []), ...kinds];
    const results = new Map<TSideName, TSideRound[]>(names.map((n) => [n, []]));
    const clockStart = Date.now();
    let broken = false;
    const total = o.rounds + 2;
    for (let round = 0; round < total; round++) {
      const label = round === 0 ? "baseline" : round === 1 ? "warm-up" : String(round - 1);
      serve();
      const clock = new Date(clockStart + (round + 1) * DAY_MS);
      const order = names.map((_, i) => names[(i + round) % names.length] as TSideName);
      const line: string[] = [];
      for (const name of order) {
        const side = sides.find((s) => s.kind === name);
        const r = side ? await bellwetherRound(side, site, clock, o) : await urlwatchRound(urlwatch as TUrlwatch, site);
        if (round >= 2) results.get(name)?.push(r);
        const expected = round === 0 ? (side ? "baseline" : "new") : "unchanged";
        if ((r.outcomes[expected] ?? 0) !== o.pages || r.fetched < o.pages) {
          broken = true;
          out(
            `  ! ${name} in round ${label}: ${describeOutcomes(r.outcomes)}; ${r.fetched} pages fetched (expected ${o.pages} ${expected})`,
          );
        }
        line.push(
          `${name} ${fmt(o.pages / (r.wallMs / 1000))} p/s` +
            (r.urlwatch ? ` (job loop ${fmt(o.pages / (r.urlwatch.jobsMs / 1000))})` : ""),
        );
      }
      out(`  round ${label}: ${line.join(", ")}`);
    }

    // ---- Report -------------------------------------------------------------------------------
    const rate = (r: TSideRound) => o.pages / (r.wallMs / 1000);
    const uw = results.get("urlwatch") ?? [];
    const uwJobRates = uw.map((r) => o.pages / ((r.urlwatch?.jobsMs ?? Number.NaN) / 1000));
    const header = [
      "per page, measured rounds",
      ...names.map((n) => (n === "urlwatch" ? "urlwatch" : `Bellwether ${n}`)),
    ];
    const row = (title: string, pick: (name: TSideName, rounds: TSideRound[]) => string) => [
      title,
      ...names.map((n) => pick(n, results.get(n) ?? [])),
    ];
    const pagesPerSecond = (rounds: TSideRound[]) => rounds.map(rate);
    const perPage = (value: number, rounds: TSideRound[]) => value / Math.max(1, rounds.length * o.pages);
    const ratios = (name: TSideName, against: number[]) =>
      pagesPerSecond(results.get(name) ?? []).map((r, i) => r / (against[i] as number));
    // Bellwether's CPU per page: its process minus serving the pages (measured during urlwatch's turns) plus its
    // PostgreSQL backends; urlwatch's: its whole process. Both per page over the measured rounds.
    const cpuPerPage = (rs: TSideRound[], pick: (r: TSideRound) => number) => perPage(sum(rs.map(pick)), rs);
    const servingPerPage = cpuPerPage(uw, (r) => r.cpuMs);
    const cpuRatio = (name: TSideName) => {
      const rs = results.get(name) ?? [];
      const bellwether =
        cpuPerPage(rs, (r) => r.cpuMs) -
        servingPerPage +
        (name === "postgres" ? cpuPerPage(rs, (r) => r.bellwether?.resources.serverCpuMs ?? Number.NaN) : 0);
      return bellwether / cpuPerPage(uw, (r) => r.urlwatch?.cpuMs ?? Number.NaN);
    };
    const rows: string[][] = [
      header,
      row("pages/s (median of rounds)", (_, rs) => fmt(median(pagesPerSecond(rs)))),
      row("pages/s (min–max)", (_, rs) => `${fmt(min(pagesPerSecond(rs)))}–${fmt(max(pagesPerSecond(rs)))}`),
    ];
    if (urlwatch) {
      rows.push(
        row("urlwatch job loop only, pages/s", (n) => (n === "urlwatch" ? fmt(median(uwJobRates)) : "")),
        row("Bellwether/urlwatch (vs its job loop)", (n) =>
          n === "urlwatch" ? "" : fmt(median(ratios(n, uwJobRates)), 3),
        ),
        row("Bellwether/urlwatch (vs its whole process)", (n) =>
          n === "urlwatch" ? "" : fmt(median(ratios(n, pagesPerSecond(uw))), 3),
        ),
      );
    }
    const perPageOf = (rs: TSideRound[], pick: (r: TSideRound) => number, decimals = 2) =>
      fmt(perPage(sum(rs.map(pick)), rs), decimals);
    rows.push(
      row("CPU ms / page, Bellwether process (serves the pages too)", (n, rs) =>
        n === "urlwatch" ? "" : perPageOf(rs, (r) => r.cpuMs),
      ),
    );
    if (kinds.includes("postgres")) {
      rows.push(
        row("CPU ms / page, PostgreSQL backends", (n, rs) =>
          n === "postgres" ? perPageOf(rs, (r) => r.bellwether?.resources.serverCpuMs ?? Number.NaN) : "",
        ),
      );
    }
    if (urlwatch) {
      rows.push(
        row("CPU ms / page, urlwatch process (its job loop)", (n, rs) =>
          n === "urlwatch"
            ? `${perPageOf(rs, (r) => r.urlwatch?.cpuMs ?? Number.NaN)} (${perPageOf(rs, (r) => r.urlwatch?.jobsCpuMs ?? Number.NaN)})`
            : "",
        ),
        row("  this process serving its pages", (n, rs) => (n === "urlwatch" ? perPageOf(rs, (r) => r.cpuMs) : "")),
        row("CPU / page, Bellwether/urlwatch (whole processes)", (n) =>
          n === "urlwatch" ? "" : `${fmt(cpuRatio(n), 2)}×`,
        ),
      );
    }
    rows.push(
      row("SQL statements / page (+ BEGIN/COMMIT)", (n, rs) =>
        n === "urlwatch"
          ? ""
          : `${perPageOf(rs, (r) => r.bellwether?.statements ?? 0, 1)} + ${perPageOf(rs, (r) => r.bellwether?.control ?? 0, 1)}`,
      ),
      row("bytes / page, table + index growth", (n, rs) =>
        n === "urlwatch" ? "" : `${perPageOf(rs, (r) => r.bellwether?.resources.relationBytes ?? 0, 0)} B`,
      ),
      row("outcomes", (_, rs) => {
        const counts: Record<string, number> = {};
        for (const r of rs) for (const [k, v] of Object.entries(r.outcomes)) counts[k] = (counts[k] ?? 0) + v;
        return describeOutcomes(counts);
      }),
    );
    out("");
    out(table(rows));
    if (urlwatch) {
      out(
        "  Bellwether's process also serves the fixture pages; the 'serving' line is that cost (measured during urlwatch's turns), " +
          "subtracted in the CPU ratio, which adds the PostgreSQL backends' CPU on postgres.",
      );
    }
    out("");
    for (const kind of kinds) {
      const rs = results.get(kind) ?? [];
      out(
        urlwatch
          ? `  RESULT peer (${kind}): Bellwether ${fmt(median(pagesPerSecond(rs)))} pages/s vs urlwatch ${fmt(median(pagesPerSecond(uw)))} ` +
              `(job loop ${fmt(median(uwJobRates))}) → Bellwether/urlwatch ${fmt(median(ratios(kind, uwJobRates)), 3)} vs its job loop, ` +
              `${fmt(median(ratios(kind, pagesPerSecond(uw))), 3)} vs its whole process (median of ${rs.length} paired rounds, ${o.concurrency} at a time); ` +
              `${fmt(cpuRatio(kind), 2)}× urlwatch's CPU per page`
          : `  RESULT peer (${kind}): Bellwether ${fmt(median(pagesPerSecond(rs)))} pages/s; urlwatch skipped, no ratio`,
      );
    }
    for (const side of sides) {
      if (side.warnings.length)
        out(`  ${side.kind}: ${side.warnings.length} refresh warning(s), first: ${side.warnings[0]}`);
    }
    if (broken) {
      out("  ! a side did not check every page as expected: the numbers above are not comparable");
      process.exitCode = 1;
    }
  } finally {
    urlwatch?.close();
    await Promise.allSettled(sides.map((s) => s.models.close()));
    await Promise.allSettled(sides.map((s) => s.bench.close()));
    await site?.close();
  }
}

export const peerBenchmark: TBenchmark = {
  name: "peer",
  description: "Bellwether's cron claim loop vs urlwatch over the same unchanged fixture pages (pages/s, ratio)",
  flags: [...Object.values(FLAGS), DB_FLAG, STATEMENTS_FLAG],
  validate: (args) => assertDbAvailable(readOptions(args).db, args),
  run: runPeerBench,
};
