import os from "node:os";
import { describePostgresUrl } from "@/server/db";
import type { TFixturePage } from "../fixtures/site/site";
import { assertDbAvailable, DB_FLAG, dbKinds } from "./bench-db";
import { DEFINITION } from "./conditional.bench";
import { choiceOption, fmt, numberOption, type TBenchArgs, type TBenchFlag, type TBenchmark, table } from "./harness";
import { makeBenchPage, renderBenchPage, type TBenchPage } from "./pages";
import {
  PEER_DIST_DIR,
  peerBuildId,
  startPeerApp,
  stopAppsOnSignal,
  type TPeerApp,
  type TPeerDbKind,
  type TPeerReading,
} from "./peer-app";
import { cpuDelta, openAdmin, type TPostgres } from "./set-route";
import { startSiteProcess, type TSiteProcess } from "./site-process";
import { max, median, min } from "./stats";
import { prepareUrlwatch, type TUrlwatch, type TUrlwatchRun } from "./urlwatch";

/**
 * Peer benchmark (tests/bench/README.md, "peer"; docs/benchmarks.md): Bellwether through its real route against
 * urlwatch, over the same N unchanged pages of the fixture site, the same number at a time, on each database.
 *
 *   Bellwether  the started app (`npm start`, peer-app.ts): a pass is POST /api/cron/refresh with CRON_SECRET, again
 *               until all N trackers were checked; the app's clock moves a day on before each round's pass so every
 *               tracker is due once. REFRESH_CONCURRENCY = --concurrency, and the per-host gate opened to it with no
 *               gap (every fixture page is on one host; urlwatch has no such politeness).
 *   urlwatch    the installed urlwatch (urlwatch.ts) over a urls.yaml of the same pages, `css: main` + `html2text`
 *               each, its worker pool = --concurrency.
 *
 * Two page sets, each with its own app and its own urlwatch cache: served WITH an ETag and Last-Modified (both sides
 * send them back: 304s, nothing downloaded), and WITHOUT validators, re-rendered every round with fresh nonces and build
 * stamps (byte-different, same content: both sides download, parse and find "unchanged"). The fixture site runs in a
 * process of its own, so its serving is in neither side. CPU: Bellwether's whole process tree (every thread, from
 * /proc) plus its database's PostgreSQL backends; urlwatch's whole process tree (its children's time in this
 * process's once it has exited). Rounds interleaved, order rotating, after a baseline and a warm-up round.
 */

const DAY_AND_MORE_MS = (1440 + 10) * 60_000; // past a daily schedule and its jitter (≤ 5 min)
/**
 * The hourly jobs (retention, stale drafts: docs/scheduling.md) run once an hour, not once a pass, so each round's
 * clock move stops 50 minutes short of the day first, where no tracker is due yet (the jitter is only ever added; the
 * empty passes below add 3 minutes once), for a cron call that runs just those jobs, measured apart; the rest of the
 * move then makes the trackers due, and the measured pass, 50 minutes later, finds the jobs done for the hour.
 */
const HOURLY_JOBS_AT_MS = DAY_AND_MORE_MS - 50 * 60_000;
/**
 * Before a Bellwether pass (the previous side's work out of the way) and after its last answer (what the route
 * leaves behind it, e.g. the deferred feed enhancement, is counted with it; so is the app's idle CPU over this wait).
 */
const SETTLE_MS = 500;
const IDLE_PROBE_MS = 3000;
/**
 * The fixed cost of a pass: after the warm-up, the clock moves this far (the daily trackers are not due, and the hourly
 * jobs, run before the warm-up's pass, not yet again: as in every measured pass) and one call finds nothing due.
 * EMPTY_PASSES of them per app, median reported.
 */
const EMPTY_PASS_STEP_MS = 60_000;
const EMPTY_PASSES = 3;
/**
 * A scheduled pass comes after an idle gap (the scheduler polls every 15 s), not seconds after the last one as the
 * measured rounds do: after the rounds, SPACED_PASSES 304 passes of the app with validators, each after this much
 * real idle time, say what such a pass costs and how many database connections it had to open (PostgreSQL only:
 * docs/scale.md, "Connection pooling").
 */
const SPACED_GAP_MS = 16_000;
const SPACED_PASSES = 2;
const LAST_MODIFIED = "Tue, 01 Dec 2026 10:00:00 GMT";
/** The product goals (docs/benchmarks.md, "peer"): on PostgreSQL, pages without validators; and a 304 pass. */
const GOAL_THROUGHPUT = 1.5;
const GOAL_CPU = 0.7;
const GOAL_304 = 5;

const FLAGS = {
  pages: {
    name: "pages",
    env: "BENCH_PEER_PAGES",
    default: 200,
    min: 1,
    max: 5000,
    integer: true,
    description: "fixture pages in each set (with validators, without) both sides check each round",
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
    max: 64,
    integer: true,
    description: "pages in flight per side: the app's REFRESH_CONCURRENCY and per-host gate, urlwatch's worker threads",
  },
} satisfies Record<string, TBenchFlag>;

/** Both databases by default when TEST_DATABASE_URL is set (PGlite alone, with a note, when not); --db to choose. */
function peerDbKinds(args: TBenchArgs): { kinds: TPeerDbKind[]; note?: string } {
  const explicit = args.flags.has(DB_FLAG.name) || Boolean(args.env[DB_FLAG.env]?.trim());
  if (explicit) return { kinds: dbKinds(choiceOption(args, DB_FLAG)) };
  if (args.env.TEST_DATABASE_URL?.trim()) return { kinds: ["pglite", "postgres"] };
  return {
    kinds: ["pglite"],
    note: "TEST_DATABASE_URL is not set: embedded PGlite only; set it for PostgreSQL too",
  };
}

type TSet = "validators" | "plain";
type TTool = "urlwatch" | "bellwether";
type TSideKey = `${TTool}/${TSet}`;
const SIDES: readonly TSideKey[] = [
  "urlwatch/validators",
  "bellwether/validators",
  "urlwatch/plain",
  "bellwether/plain",
];
const SETS: readonly TSet[] = ["plain", "validators"];
const setLabel = (set: TSet) => (set === "validators" ? "with validators" : "no validators");

type TTurn = {
  wallMs: number;
  /** Bellwether: its app's process tree (every thread); urlwatch: its process tree. */
  treeCpuMs: number;
  /** Bellwether: of that, its processes' main threads (the server's event loop). */
  mainCpuMs?: number;
  /** PostgreSQL backends of the app's database (0 for urlwatch and on PGlite, NaN when not measurable). */
  pgCpuMs: number;
  siteCpuMs: number;
  /** Status → count of the page requests the fixture site answered during the turn. */
  answers: Record<string, number>;
  outcomes: Record<string, number>;
  calls?: number;
  threadsEnded?: number;
  urlwatch?: TUrlwatchRun;
};

const totalCpu = (t: TTurn) => t.treeCpuMs + (Number.isNaN(t.pgCpuMs) ? 0 : t.pgCpuMs);

const describeCounts = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(", ") || "nothing";

const sameCounts = (got: Record<string, number>, wanted: Record<string, number>) =>
  Object.keys({ ...got, ...wanted }).every((k) => (got[k] ?? 0) === (wanted[k] ?? 0));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const progress = (line: string) => process.stderr.write(`  [peer] ${line}\n`);

/** The site's page requests after `seq` (its log keeps the newest 10,000): statuses counted, and the newest seq. */
async function answersSince(
  site: TSiteProcess,
  seq: number,
): Promise<{ answers: Record<string, number>; seq: number }> {
  const answers: Record<string, number> = {};
  let last = seq;
  for (const r of await site.control.requests()) {
    if (r.seq <= seq) continue;
    last = Math.max(last, r.seq);
    const key = String(r.status ?? "unanswered");
    answers[key] = (answers[key] ?? 0) + 1;
  }
  return { answers, seq: last };
}

type TDbRun = {
  kind: TPeerDbKind;
  results: Map<TSideKey, TTurn[]>;
  idleCpuMsPerSecond: Record<TSet, number>;
  /** CPU ms (app tree + backends) of each empty pass per app. */
  emptyPassCpuMs: Record<TSet, number[]>;
  /** CPU ms (app tree + backends) of each round's call that ran the hourly jobs, before its measured pass. */
  hourlyJobsCpuMs: number[];
  /** The 304 passes after an idle gap (SPACED_GAP_MS): CPU ms (tree + backends) and the backends each one opened. */
  spaced: { cpuMs: number; newBackends: number }[];
  broken: boolean;
};

async function runOnDb(
  kind: TPeerDbKind,
  o: { pages: number; rounds: number; concurrency: number },
  ctx: { site: TSiteProcess; pages: TBenchPage[]; postgres?: TPostgres; urlwatchExecutable?: string },
  out: (line: string) => void,
): Promise<TDbRun | undefined> {
  const { site, pages } = ctx;
  const n = o.pages;
  const urlsOf = (set: TSet) => pages.map((p) => site.control.urlFor(`/${set}${p.path}`));
  const apps = new Map<TSet, TPeerApp>();
  const urlwatches = new Map<TSet, TUrlwatch>();
  try {
    for (const set of SETS) {
      const prepared = await prepareUrlwatch(urlsOf(set), {
        concurrency: o.concurrency,
        tmpRoot: os.tmpdir(),
        ...(ctx.urlwatchExecutable ? { executable: ctx.urlwatchExecutable } : {}),
      });
      if ("skipped" in prepared) {
        out(`  urlwatch skipped: ${prepared.skipped}. Nothing to compare with; the peer benchmark stops.`);
        return undefined;
      }
      urlwatches.set(set, prepared);
    }
    // One app per page set: a cron pass refreshes whatever is due, and both sets fall due with the same day's move.
    for (const set of SETS) {
      const app = await startPeerApp({
        label: `${kind} app, pages ${setLabel(set)}`,
        kind,
        ...(ctx.postgres ? { postgres: ctx.postgres } : {}),
        env: {
          FETCH_ALLOW_HOSTS: new URL(site.control.url).host,
          REFRESH_CONCURRENCY: String(o.concurrency),
          HOST_MAX_IN_FLIGHT: String(o.concurrency),
          HOST_MIN_GAP_MS: "0",
        },
      });
      apps.set(set, app);
      progress(`${app.label}: creating ${n} daily trackers through the public API…`);
      await app.createTrackers(urlsOf(set), DEFINITION);
    }
    if ([...apps.values()].some((app) => app.buildId !== peerBuildId())) {
      throw new Error(`${PEER_DIST_DIR} was rebuilt between the two apps' starts (are the sources being edited?)`);
    }
    const uw = urlwatches.get("plain") as TUrlwatch;
    out(
      `  ${kind}: two apps (one per page set) on ${ctx.postgres && kind === "postgres" ? `PostgreSQL ${ctx.postgres.version} at ${describePostgresUrl(ctx.postgres.serverUrl)} (a throw-away database each; backends' CPU ${ctx.postgres.local ? "counted" : "NOT measurable: server not on this machine"})` : "embedded PGlite in a throw-away data dir each (in the app's process)"}; urlwatch ${uw.version} (${uw.where})`,
    );

    // What an app does on its own (nothing due, scheduler off): in every pass's CPU over its SETTLE_MS waits.
    const idleCpuMsPerSecond = {} as Record<TSet, number>;
    for (const set of SETS) {
      const app = apps.get(set) as TPeerApp;
      const before = await app.reading();
      await sleep(IDLE_PROBE_MS);
      const after = await app.reading();
      idleCpuMsPerSecond[set] = (cpuOf(before, after).total * 1000) / IDLE_PROBE_MS;
    }

    const emptyPassCpuMs: Record<TSet, number[]> = { plain: [], validators: [] };
    const hourlyJobsCpuMs: number[] = [];
    let seq = (await answersSince(site, 0)).seq;
    const results = new Map<TSideKey, TTurn[]>(SIDES.map((k) => [k, []]));
    let broken = false;
    const total = o.rounds + 2;
    for (let round = 0; round < total; round++) {
      const label = round === 0 ? "baseline" : round === 1 ? "warm-up" : `${round - 1} of ${o.rounds}`;
      progress(`${kind}: round ${label}…`);
      // Pages without validators: fresh noise every round (same content). With validators: the same bytes.
      const fresh: Record<string, TFixturePage> = {};
      for (const page of pages) fresh[`/plain${page.path}`] = { body: renderBenchPage(page) };
      await ctx.site.control.setPages(fresh);
      const order = SIDES.map((_, i) => SIDES[(i + round) % SIDES.length] as TSideKey);
      const line: string[] = [];
      for (const key of order) {
        const [tool, set] = key.split("/") as [TTool, TSet];
        let turn: TTurn;
        if (tool === "urlwatch") {
          const site0 = site.cpuMs();
          const run = await (urlwatches.get(set) as TUrlwatch).run();
          const siteCpuMs = site.cpuMs() - site0;
          const seen = await answersSince(site, seq);
          seq = seen.seq;
          turn = {
            wallMs: run.wallMs,
            treeCpuMs: run.treeCpuMs,
            pgCpuMs: 0,
            siteCpuMs,
            answers: seen.answers,
            outcomes: run.verbs,
            urlwatch: run,
          };
        } else {
          const app = apps.get(set) as TPeerApp;
          if (round > 0) {
            await app.moveClock(HOURLY_JOBS_AT_MS);
            const before = await app.reading();
            const jobs = await app.cronPass(0);
            const after = await app.reading();
            if (jobs.refreshes !== 0) {
              broken = true;
              out(`  ! ${kind}, ${key}: the hourly jobs' call ran ${describeCounts(jobs.outcomes)}`);
            }
            if (round >= 2) hourlyJobsCpuMs.push(cpuOf(before, after).total);
            await app.moveClock(DAY_AND_MORE_MS - HOURLY_JOBS_AT_MS);
          }
          await sleep(SETTLE_MS);
          const siteBefore = site.cpuMs();
          const before = await app.reading();
          const pass = await app.cronPass(n);
          await sleep(SETTLE_MS);
          const after = await app.reading();
          const siteCpuMs = site.cpuMs() - siteBefore;
          const seen = await answersSince(site, seq);
          seq = seen.seq;
          const cpu = cpuOf(before, after);
          turn = {
            wallMs: pass.wallMs,
            treeCpuMs: cpu.tree,
            mainCpuMs: cpu.mainMs,
            pgCpuMs: kind === "postgres" ? cpu.pg : 0,
            siteCpuMs,
            answers: seen.answers,
            outcomes: pass.outcomes,
            calls: pass.calls,
            threadsEnded: cpu.ended,
          };
        }
        const wantedOutcomes = round === 0 ? { [tool === "urlwatch" ? "new" : "baseline"]: n } : { unchanged: n };
        const wantedAnswers = { [round > 0 && set === "validators" ? "304" : "200"]: n };
        if (!sameCounts(turn.outcomes, wantedOutcomes) || !sameCounts(turn.answers, wantedAnswers)) {
          broken = true;
          out(
            `  ! ${kind}, ${key}, round ${label}: ${describeCounts(turn.outcomes)}; the site answered ${describeCounts(turn.answers)} (expected ${describeCounts(wantedOutcomes)}; ${describeCounts(wantedAnswers)})`,
          );
        }
        if (round >= 2) results.get(key)?.push(turn);
        line.push(`${key} ${fmt(n / (turn.wallMs / 1000), 0)} p/s`);
      }
      progress(`  ${line.join(", ")}`);
      if (round !== 1) continue;
      // After the warm-up: what a pass costs with nothing due (the route, the empty claim, heartbeat, hourly jobs).
      for (const set of SETS) {
        const app = apps.get(set) as TPeerApp;
        for (let i = 0; i < EMPTY_PASSES; i++) {
          await app.moveClock(EMPTY_PASS_STEP_MS);
          await sleep(SETTLE_MS);
          const before = await app.reading();
          const pass = await app.cronPass(0);
          await sleep(SETTLE_MS);
          const after = await app.reading();
          if (pass.refreshes !== 0) {
            broken = true;
            out(`  ! ${kind}, ${set}: a pass that should find nothing due ran ${describeCounts(pass.outcomes)}`);
          }
          emptyPassCpuMs[set].push(cpuOf(before, after).total);
        }
      }
    }
    const spaced: TDbRun["spaced"] = [];
    const validators = apps.get("validators") as TPeerApp;
    for (let i = 0; kind === "postgres" && i < SPACED_PASSES; i++) {
      progress(`${kind}: a 304 pass after ${fmt(SPACED_GAP_MS / 1000, 0)} s idle (${i + 1} of ${SPACED_PASSES})…`);
      // As in a round: the hourly jobs by a call of their own (not counted), then the day that makes every tracker due.
      await validators.moveClock(HOURLY_JOBS_AT_MS);
      await validators.cronPass(0);
      await validators.moveClock(DAY_AND_MORE_MS - HOURLY_JOBS_AT_MS);
      await sleep(SPACED_GAP_MS);
      const before = await validators.reading();
      const pass = await validators.cronPass(n);
      await sleep(SETTLE_MS);
      const after = await validators.reading();
      if (!sameCounts(pass.outcomes, { unchanged: n })) {
        broken = true;
        out(`  ! ${kind}, a pass after an idle gap: ${describeCounts(pass.outcomes)} (expected unchanged ${n})`);
      }
      const opened = [...(after.backends?.keys() ?? [])].filter((pid) => !before.backends?.has(pid)).length;
      spaced.push({ cpuMs: cpuOf(before, after).total, newBackends: opened });
    }
    if ([...apps.values()].some((app) => app.buildId !== peerBuildId())) {
      broken = true;
      out(`  ! ${PEER_DIST_DIR} was rebuilt during the measurement (another start?); the figures would mean nothing`);
    }
    return { kind, results, idleCpuMsPerSecond, emptyPassCpuMs, hourlyJobsCpuMs, spaced, broken };
  } catch (error) {
    for (const app of apps.values()) out(`  ${app.label}: the app's last output:\n${app.tail()}`);
    throw error;
  } finally {
    await Promise.allSettled([...apps.values()].map((app) => app.stop()));
    for (const u of urlwatches.values()) u.close();
  }
}

function cpuOf(before: TPeerReading, after: TPeerReading) {
  const tree = cpuDelta(before.tree, after.tree);
  const pg = before.backends && after.backends ? cpuDelta(before.backends, after.backends).ms : Number.NaN;
  // Main threads (tid = pid: the Next server's event loop, and npm's, idle); the rest are the page workers, V8's
  // and libuv's threads (every Node thread is named "node", so they are not told apart further).
  const main = (m: Map<string, number>) => new Map([...m].filter(([id]) => id.split("/")[0] === id.split("/")[1]));
  const mainMs = cpuDelta(main(before.tree), main(after.tree)).ms;
  return { tree: tree.ms, mainMs, pg, ended: tree.ended, total: tree.ms + (Number.isNaN(pg) ? 0 : pg) };
}

function report(run: TDbRun, o: { pages: number; rounds: number; concurrency: number }, out: (line: string) => void) {
  const n = o.pages;
  const turns = (key: TSideKey) => run.results.get(key) ?? [];
  const rates = (key: TSideKey) => turns(key).map((t) => n / (t.wallMs / 1000));
  const perPage = (key: TSideKey, pick: (t: TTurn) => number) => median(turns(key).map(pick)) / n;
  const pairedRatio = (set: TSet) => {
    const uw = rates(`urlwatch/${set}`);
    return median(rates(`bellwether/${set}`).map((r, i) => r / (uw[i] as number)));
  };
  const cpuRatio = (set: TSet) => perPage(`bellwether/${set}`, totalCpu) / perPage(`urlwatch/${set}`, totalCpu);
  const pgMeasured = run.kind === "postgres" && turns("bellwether/plain").every((t) => !Number.isNaN(t.pgCpuMs));
  const row = (title: string, pick: (key: TSideKey, tool: TTool, set: TSet) => string) => [
    title,
    ...SIDES.map((key) => {
      const [tool, set] = key.split("/") as [TTool, TSet];
      return pick(key, tool, set);
    }),
  ];
  const header = [
    `${run.kind}: per page, medians of ${turns("bellwether/plain").length} rounds`,
    ...SIDES.map((key) => {
      const [tool, set] = key.split("/") as [TTool, TSet];
      return `${tool === "urlwatch" ? "urlwatch" : "Bellwether"}, ${setLabel(set)}`;
    }),
  ];
  const rows: string[][] = [
    header,
    row("pages/s (median of rounds)", (key) => fmt(median(rates(key)))),
    row("pages/s (min–max)", (key) => `${fmt(min(rates(key)), 0)}–${fmt(max(rates(key)), 0)}`),
    row("Bellwether/urlwatch pages/s (paired rounds)", (_, tool, set) =>
      tool === "bellwether" ? `${fmt(pairedRatio(set), 2)}×` : "",
    ),
    row("urlwatch's job loop alone, pages/s", (key, tool) =>
      tool === "urlwatch" ? fmt(median(turns(key).map((t) => n / ((t.urlwatch?.jobsMs ?? Number.NaN) / 1000)))) : "",
    ),
    row("CPU ms / page, process tree", (key) =>
      fmt(
        perPage(key, (t) => t.treeCpuMs),
        2,
      ),
    ),
    row("  of which main threads (the server's event loop)", (key, tool) =>
      tool === "bellwether"
        ? fmt(
            perPage(key, (t) => t.mainCpuMs ?? Number.NaN),
            2,
          )
        : "",
    ),
    row("CPU ms / page, PostgreSQL backends", (key, tool) =>
      tool === "bellwether" && run.kind === "postgres"
        ? pgMeasured
          ? fmt(
              perPage(key, (t) => t.pgCpuMs),
              2,
            )
          : "not measurable"
        : "",
    ),
    row("CPU ms / page, all counted", (key) => fmt(perPage(key, totalCpu), 2)),
    row("CPU / page, Bellwether/urlwatch", (_, tool, set) =>
      tool === "bellwether" ? `${fmt(cpuRatio(set), 2)}×` : "",
    ),
    row("  (urlwatch's own getrusage, ms / page)", (key, tool) =>
      tool === "urlwatch"
        ? fmt(
            perPage(key, (t) => t.urlwatch?.cpuMs ?? Number.NaN),
            2,
          )
        : "",
    ),
    row("  (fixture site's CPU, not counted)", (key) =>
      fmt(
        perPage(key, (t) => t.siteCpuMs),
        2,
      ),
    ),
    row("cron calls per pass", (key, tool) =>
      tool === "bellwether" ? fmt(median(turns(key).map((t) => t.calls ?? Number.NaN)), 0) : "",
    ),
    row("site answers, all measured rounds", (key) => {
      const counts: Record<string, number> = {};
      for (const t of turns(key)) for (const [k, v] of Object.entries(t.answers)) counts[k] = (counts[k] ?? 0) + v;
      return describeCounts(counts);
    }),
    row("outcomes, all measured rounds", (key) => {
      const counts: Record<string, number> = {};
      for (const t of turns(key)) for (const [k, v] of Object.entries(t.outcomes)) counts[k] = (counts[k] ?? 0) + v;
      return describeCounts(counts);
    }),
  ];
  out("");
  // Rows that say nothing on this database (PostgreSQL backends on PGlite) are left out.
  out(table(rows.filter((r, i) => i === 0 || r.slice(1).some((c) => c !== ""))));
  const ended = [...run.results.values()].flat().reduce((s, t) => s + (t.threadsEnded ?? 0), 0);
  out(
    `  Bellwether's idle CPU (nothing due, scheduler off), in each pass over its ${fmt((2 * SETTLE_MS) / 1000, 1)} s of waits: ` +
      `${fmt(run.idleCpuMsPerSecond.plain, 1)} / ${fmt(run.idleCpuMsPerSecond.validators, 1)} ms a second (no validators / with)` +
      (ended > 0 ? `; ${ended} app threads ended during measured passes (their CPU in those passes is missing)` : ""),
  );
  const empty = (set: TSet) => median(run.emptyPassCpuMs[set]);
  out(
    `  A pass with nothing due (the route, an empty claim, the heartbeat, the deferred step; no hourly jobs; median of ${EMPTY_PASSES} per app): ` +
      `${fmt(empty("plain"), 0)} / ${fmt(empty("validators"), 0)} CPU ms (no validators / with app, tree + backends, 1 s of waits included), ` +
      `i.e. ${fmt(empty("plain") / n, 2)} / ${fmt(empty("validators") / n, 2)} ms a page at ${n} pages — in every measured pass above`,
  );
  out(
    `  The hourly jobs (retention, stale drafts), run by a cron call of their own before each measured pass, as they run once an hour and not once a pass: ` +
      `median ${fmt(median(run.hourlyJobsCpuMs), 0)} CPU ms (tree + backends, ${run.hourlyJobsCpuMs.length} calls), not in the figures above`,
  );
  if (run.spaced.length > 0) {
    out(
      `  A 304 pass ${fmt(SPACED_GAP_MS / 1000, 0)} s after the last call (as a scheduled pass finds the app; the rounds above run seconds apart), ${run.spaced.length} of them: ` +
        `${run.spaced.map((s) => fmt(s.cpuMs / n, 2)).join(" / ")} CPU ms a page (tree + backends), ` +
        `${run.spaced.map((s) => s.newBackends).join(" / ")} database connections opened by the pass (the measured rounds: ${fmt(perPage("bellwether/validators", totalCpu), 2)} ms a page)`,
    );
  }
  const verdict = (met: boolean) => (met ? "met" : "NOT met");
  for (const set of ["plain", "validators"] as const) {
    const tp = pairedRatio(set);
    const cpu = cpuRatio(set);
    const governed = run.kind === "postgres" && set === "plain";
    out(
      `  RESULT peer (${run.kind}, ${setLabel(set)}): Bellwether ${fmt(median(rates(`bellwether/${set}`)))} pages/s vs urlwatch ${fmt(median(rates(`urlwatch/${set}`)))} → ${fmt(tp, 2)}× ` +
        `(goal ≥ ${GOAL_THROUGHPUT}×: ${verdict(tp >= GOAL_THROUGHPUT)}); CPU ${fmt(perPage(`bellwether/${set}`, totalCpu), 2)} vs ${fmt(perPage(`urlwatch/${set}`, totalCpu), 2)} ms a page → ${fmt(cpu, 2)}× ` +
        `(goal ≤ ${GOAL_CPU}×: ${verdict(cpu <= GOAL_CPU)})${governed ? "" : " — the goals are set for PostgreSQL without validators; shown here for reference"}`,
    );
  }
  const b200 = perPage("bellwether/plain", totalCpu);
  const b304 = perPage("bellwether/validators", totalCpu);
  const u304 = perPage("urlwatch/plain", totalCpu) / perPage("urlwatch/validators", totalCpu);
  out(
    `  RESULT peer (${run.kind}, 304 pass vs 200 pass): Bellwether ${fmt(b304, 2)} against ${fmt(b200, 2)} CPU ms a page → a 304 pass ${fmt(b200 / b304, 2)}× cheaper ` +
      `(goal ≥ ${GOAL_304}×: ${verdict(b200 / b304 >= GOAL_304)}); urlwatch's: ${fmt(u304, 2)}×`,
  );
}

export async function runPeerBench(args: TBenchArgs, out: (line: string) => void): Promise<void> {
  const o = {
    pages: numberOption(args, FLAGS.pages),
    rounds: numberOption(args, FLAGS.rounds),
    concurrency: numberOption(args, FLAGS.concurrency),
  };
  const { kinds, note } = peerDbKinds(args);
  const seed = 42;
  const pages = Array.from({ length: o.pages }, (_, i) => makeBenchPage(i, seed, { min: 20, max: 50 }));
  out(
    `  peer through the route: ${o.pages} unchanged fixture pages (20–50 KB) per set, with validators (ETag + Last-Modified: 304s) and without (fresh nonces every round), ` +
      `${o.concurrency} at a time per side, ${o.rounds} measured rounds after a baseline and a warm-up round, order rotating; on ${kinds.join(", ")}; ` +
      `${os.cpus().length} cores, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
  );
  if (note) out(`  ${note}`);
  out(
    `  Bellwether = npm start (${PEER_DIST_DIR}, rules mode, SCHEDULER=off), a pass = POST /api/cron/refresh (CRON_SECRET) until all ${o.pages} trackers were checked; ` +
      `REFRESH_CONCURRENCY=${o.concurrency}; per-host gate opened: HOST_MAX_IN_FLIGHT=${o.concurrency}, HOST_MIN_GAP_MS=0 (every fixture page is on one host; urlwatch has no per-host limit)`,
  );
  out(
    `  urlwatch = the installed urlwatch, \`css: main\` + \`html2text\` per page, its worker pool set to ${o.concurrency}; the fixture site in a process of its own (its CPU in neither side)`,
  );
  const undoSignals = stopAppsOnSignal();
  let site: TSiteProcess | undefined;
  let postgres: TPostgres | undefined;
  let broken = false;
  try {
    site = await startSiteProcess();
    const fixed: Record<string, TFixturePage> = {};
    for (const [i, page] of pages.entries()) {
      fixed[`/validators${page.path}`] = { body: renderBenchPage(page), etag: `"p${i}"`, lastModified: LAST_MODIFIED };
    }
    await site.control.setPages(fixed);
    if (kinds.includes("postgres")) postgres = await openAdmin(args.env.TEST_DATABASE_URL?.trim() ?? "");
    for (const kind of kinds) {
      const run = await runOnDb(
        kind,
        o,
        {
          site,
          pages,
          ...(postgres ? { postgres } : {}),
          ...(args.env.BENCH_URLWATCH ? { urlwatchExecutable: args.env.BENCH_URLWATCH } : {}),
        },
        out,
      );
      if (!run) return;
      report(run, o, out);
      broken ||= run.broken;
    }
    if (broken) {
      out("  ! a side did not check every page as expected (lines marked !): the figures are not comparable");
      process.exitCode = 1;
    }
  } finally {
    await site?.close();
    await postgres?.admin.end().catch(() => {});
    undoSignals();
  }
}

export const peerBenchmark: TBenchmark = {
  name: "peer",
  description:
    "Bellwether through the started app's cron route vs urlwatch, same unchanged pages with and without validators (pages/s, CPU per page)",
  flags: [...Object.values(FLAGS), DB_FLAG],
  validate: (args) => {
    if (args.flags.has(DB_FLAG.name) || args.env[DB_FLAG.env]?.trim()) {
      assertDbAvailable(choiceOption(args, DB_FLAG), args);
    }
  },
  run: runPeerBench,
};
