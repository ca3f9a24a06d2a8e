import fs from "node:fs";
import { closeBrowsers, type TBrowserConfig } from "@/server/capabilities";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { jsPricePage } from "../fixtures/site/js-pages";
import { startFixtureSite } from "../fixtures/site/site";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig, testBrowserConfig } from "../helpers/trackers";
import { openBenchDb } from "./bench-db";
import { quietLogger } from "./bench-trackers";
import { fmt, numberOption, runPool, type TBenchFlag, type TBenchmark, table } from "./harness";
import { procStat } from "./proc-stat";
import { mean, median, percentile } from "./stats";

/**
 * Render benchmark (docs/page-reading.md, "Pages that need a browser"): what a refresh costs when its page needs a browser, next to the same page
 * served with its content in the HTML (plain fetch), in one run. Same price, same definition (a CSS
 * extractor, rules mode: no model), same database (in-memory PGlite) and fixture site; both sides use
 * `render: auto` as a tracker would (the shells are remembered after the baseline, so the measured rounds
 * render straight away). Rounds alternate which side goes first. Pages are unchanged, so every measured
 * refresh is the hot path: crawl + hash pre-check + one write.
 *
 * CPU: this process (`process.cpuUsage`: Node, PGlite, the fixture site) and the browser's processes
 * (utime+stime of this process's descendants from /proc, Linux only), each divided by the refreshes.
 */

const PAGES: TBenchFlag = {
  name: "render-pages",
  env: "BENCH_RENDER_PAGES",
  default: 12,
  min: 1,
  max: 500,
  integer: true,
  description: "trackers per side (JavaScript shells vs the same pages served plain)",
};
const ROUNDS: TBenchFlag = {
  name: "render-rounds",
  env: "BENCH_RENDER_ROUNDS",
  default: 4,
  min: 1,
  max: 100,
  integer: true,
  description: "measured rounds over both sides (after a baseline pass)",
};

/** utime+stime (ms) of every live descendant of this process (the browser and its renderers). */
function descendantCpuMs(): number | null {
  if (process.platform !== "linux") return null;
  const parents = new Map<number, number>();
  const cpu = new Map<number, number>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry)); // null: gone meanwhile
    if (!stat) continue;
    parents.set(Number(entry), stat.ppid);
    cpu.set(Number(entry), stat.cpuMs);
  }
  let total = 0;
  for (const [pid, ms] of cpu) {
    let p = parents.get(pid);
    for (let depth = 0; p && depth < 16; depth++) {
      if (p === process.pid) {
        total += ms;
        break;
      }
      p = parents.get(p);
    }
  }
  return total;
}

const plainPage = (price: string) => ({
  body: `<!doctype html><html><head><title>Acme Pro</title><link rel="canonical" href="/app-pricing"></head>
<body><div id="root"><main><h1>Acme Pro</h1><p class="plan">Pro plan <span id="price">${price}</span> per month</p></main></div></body></html>`,
});

type TSide = "plain" | "rendered";

export const renderBenchmark: TBenchmark = {
  name: "render",
  description: "a refresh of a page that needs a browser vs the same page fetched plainly (latency, CPU ms)",
  flags: [PAGES, ROUNDS],
  async run(args, out) {
    const browser: TBrowserConfig | undefined = testBrowserConfig({ concurrency: 2, restartAfterPages: 100_000 });
    if (!browser) {
      out("render: skipped — no Chromium found (set CHROMIUM_PATH or install chromium).");
      return;
    }
    const n = numberOption(args, PAGES);
    const rounds = numberOption(args, ROUNDS);
    const site = await startFixtureSite();
    const bench = await openBenchDb("pglite");
    try {
      const capabilityConfig = localCapabilityConfig([site.url], { timeoutMs: 10_000, maxBytes: 1_000_000 });
      capabilityConfig.fetch.browser = browser;
      const log: string[] = [];
      const options: TRefreshOptions = {
        trigger: "manual",
        models: { filler: null, judge: null },
        capabilityConfig,
        log: quietLogger(log),
      };
      const trackers: Record<TSide, string[]> = { plain: [], rendered: [] };
      for (let i = 0; i < n; i++) {
        const price = `$${(40 + i).toFixed(2)}`;
        site.setPage(`/plain/${i}`, plainPage(price));
        site.setPage(`/app/${i}`, jsPricePage({ price }));
        for (const side of ["plain", "rendered"] as const) {
          const { tracker } = await createActiveTracker(bench.db, {
            capability: "web.scrape",
            capabilityInput: { url: site.urlFor(side === "plain" ? `/plain/${i}` : `/app/${i}`), render: "auto" },
            definition: cssPriceDefinition(0.05),
          });
          trackers[side].push(tracker.id);
        }
      }
      const pass = async (side: TSide) => {
        const cpu0 = process.cpuUsage();
        const child0 = descendantCpuMs();
        const { latencies, results } = await runPool(trackers[side], browser.concurrency, (id) =>
          refreshTracker(bench.db, id, options),
        );
        const cpu = process.cpuUsage(cpu0);
        const child1 = descendantCpuMs();
        const failed = results.filter((r) => r.status !== "completed");
        if (failed.length) throw new Error(`${side}: ${failed.length} refresh(es) failed: ${failed[0]?.summary}`);
        return {
          latencies,
          outcomes: results.map((r) => r.outcome),
          nodeCpuMs: (cpu.user + cpu.system) / 1000,
          browserCpuMs: child0 === null || child1 === null ? null : Math.max(0, child1 - child0),
        };
      };
      // Baseline (and auto's decision, remembered for the shells).
      await pass("plain");
      await pass("rendered");
      const totals: Record<
        TSide,
        { latencies: number[]; nodeCpuMs: number; browserCpuMs: number | null; unchanged: number }
      > = {
        plain: { latencies: [], nodeCpuMs: 0, browserCpuMs: 0, unchanged: 0 },
        rendered: { latencies: [], nodeCpuMs: 0, browserCpuMs: 0, unchanged: 0 },
      };
      for (let r = 0; r < rounds; r++) {
        const order: TSide[] = r % 2 === 0 ? ["plain", "rendered"] : ["rendered", "plain"];
        for (const side of order) {
          const res = await pass(side);
          const t = totals[side];
          t.latencies.push(...res.latencies);
          t.nodeCpuMs += res.nodeCpuMs;
          t.browserCpuMs =
            t.browserCpuMs === null || res.browserCpuMs === null ? null : t.browserCpuMs + res.browserCpuMs;
          t.unchanged += res.outcomes.filter((o) => o === "unchanged").length;
        }
      }
      const per = (side: TSide) => {
        const t = totals[side];
        const count = t.latencies.length;
        return {
          count,
          p50: median(t.latencies),
          p95: percentile(t.latencies, 95),
          mean: mean(t.latencies),
          node: t.nodeCpuMs / count,
          browser: t.browserCpuMs === null ? Number.NaN : t.browserCpuMs / count,
          unchanged: t.unchanged,
        };
      };
      const plain = per("plain");
      const rendered = per("rendered");
      const total = (s: typeof plain) => s.node + (Number.isNaN(s.browser) ? 0 : s.browser);
      out(
        `render: ${n} tracker(s) per side × ${rounds} round(s), concurrency ${browser.concurrency}, ${browser.executablePath}`,
      );
      out(
        table([
          ["per refresh (unchanged page)", "plain fetch", "rendered", "rendered/plain"],
          ["refreshes measured", String(plain.count), String(rendered.count), ""],
          ["unchanged outcomes", String(plain.unchanged), String(rendered.unchanged), ""],
          ["latency p50 (ms)", fmt(plain.p50), fmt(rendered.p50), fmt(rendered.p50 / plain.p50, 1)],
          ["latency p95 (ms)", fmt(plain.p95), fmt(rendered.p95), fmt(rendered.p95 / plain.p95, 1)],
          ["latency mean (ms)", fmt(plain.mean), fmt(rendered.mean), fmt(rendered.mean / plain.mean, 1)],
          ["CPU ms, this process", fmt(plain.node), fmt(rendered.node), fmt(rendered.node / plain.node, 1)],
          ["CPU ms, browser processes", fmt(plain.browser), fmt(rendered.browser), ""],
          ["CPU ms, total", fmt(total(plain)), fmt(total(rendered)), fmt(total(rendered) / total(plain), 1)],
        ]),
      );
    } finally {
      await closeBrowsers();
      await bench.close();
      await site.close();
    }
  },
};
