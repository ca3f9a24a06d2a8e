import "../../scripts/require-node.mjs"; // first: refuse to run on another Node.js major
import { execFileSync } from "node:child_process";
import os from "node:os";
import { adapterBenchmark } from "./adapter.bench";
import { claimScaleBenchmark } from "./claim-scale.bench";
import { conditionalBenchmark } from "./conditional.bench";
import { corpusBenchmark } from "./corpus.bench";
import { feedBenchmark } from "./feed.bench";
import { FIXTURE_HOST_NOTE, openFixtureHostGate } from "./fixture-host";
import { BenchUsageError, parseBenchCommand, type TBenchCommand, type TBenchmark } from "./harness";
import { memoryBenchmark } from "./memory.bench";
import { peerBenchmark } from "./peer.bench";
import { refreshBenchmark } from "./refresh.bench";
import { renderBenchmark } from "./render.bench";
import { replayBenchmark } from "./replay.bench";
import { schedulerBenchmark } from "./scheduler.bench";
import { setBenchmark } from "./set.bench";
import { trackersListBenchmark } from "./trackers-list.bench";

/**
 * `npm run bench [-- <name>…] [--flag value…]` runs every benchmark (or the named ones) in this process
 * and prints plain text; `--help` lists the benchmarks and their flags. A bad command line exits 2. Benchmarks compare variants side by side within one run and report ratios;
 * absolute rates depend on the machine and are for orientation only. See tests/bench/README.md.
 */

const BENCHMARKS: TBenchmark[] = [
  corpusBenchmark,
  feedBenchmark,
  refreshBenchmark,
  conditionalBenchmark,
  setBenchmark,
  peerBenchmark,
  adapterBenchmark,
  memoryBenchmark,
  renderBenchmark,
  replayBenchmark,
  schedulerBenchmark,
  claimScaleBenchmark,
  trackersListBenchmark,
];

function gitRevision(): string {
  try {
    const rev = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return dirty ? `${rev} + uncommitted changes` : rev;
  } catch {
    return "unknown";
  }
}

async function main(): Promise<void> {
  let command: TBenchCommand;
  try {
    command = parseBenchCommand(process.argv.slice(2), BENCHMARKS);
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    console.error(`${error.message}\nSee: npm run bench -- --help`);
    process.exitCode = 2;
    return;
  }
  if (command.kind === "help") {
    process.stdout.write(`${command.text}\n`);
    return;
  }
  const { selected, args } = command;
  const cpus = os.cpus();
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out("Bellwether benchmarks");
  out(
    `  ${new Date().toISOString()} · node ${process.version} · ${os.platform()}/${os.arch()} · ${cpus.length} × ${cpus[0]?.model.trim() ?? "cpu"} · ${Math.round(os.totalmem() / 2 ** 30)} GiB · git ${gitRevision()}`,
  );
  out("  Rates are machine-dependent; compare the ratios, which are measured side by side in the same run.");
  openFixtureHostGate();
  out(`  ${FIXTURE_HOST_NOTE}`);
  for (const b of selected) out(`  - ${b.name}: ${b.description}`);
  const started = performance.now();
  for (const b of selected) {
    out("");
    const t0 = performance.now();
    await b.run(args, out);
    out(`  (${b.name} took ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
  out("");
  out(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
