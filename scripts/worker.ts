/**
 * `npm run worker`: a scheduler in a process of its own (docs/scheduling.md) — the same loop the server runs
 * inside itself — for scaling out on PostgreSQL. Any number of workers, app instances and cron calls can run
 * together: claims use FOR UPDATE SKIP LOCKED, so no tracker is refreshed twice, and the hourly jobs are claimed
 * once across all of them. SIGINT/SIGTERM stop claiming, let refreshes in flight finish, exit 0.
 *
 * Needs DATABASE_URL (PostgreSQL). The embedded database (PGlite) belongs to one process — the app, whose own
 * scheduler keeps watch.
 */
import "./require-node.mjs"; // first: refuse to run on another Node.js major
import "./drop-closed-output.mjs"; // output nobody reads is dropped (docs/operations.md, "Logs")
import { parseEnvOrExit, schedulerPollMs } from "../server/env";

const say = (line: string) => process.stdout.write(`[worker] ${line}\n`);

async function main() {
  const env = parseEnvOrExit();
  if (!env.DATABASE_URL) {
    process.stderr.write(
      "npm run worker needs DATABASE_URL (PostgreSQL): the embedded database can only be opened by one process, the app, " +
        "and the app's own scheduler already keeps watch there (see docs/scheduling.md).\n",
    );
    process.exit(1);
  }
  const [{ createPostgresDb }, { runScheduler }] = await Promise.all([
    import("../server/db"),
    import("../server/triggers/run-scheduler"),
  ]);
  const handle = await createPostgresDb(env.DATABASE_URL, { checkMigrations: true });
  const stop = new AbortController();
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      say(`${signal} again: exiting now`);
      process.exit(130);
    }
    say(`${signal}: finishing refreshes in flight, then exiting (send again to exit at once)`);
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const pollMs = schedulerPollMs(env);
  say(
    `started: concurrency ${env.REFRESH_CONCURRENCY}, budget ${env.REFRESH_BUDGET_MS} ms per pass, poll ${pollMs} ms`,
  );
  const result = await runScheduler(handle.db, {
    kind: "worker",
    concurrency: env.REFRESH_CONCURRENCY,
    budgetMs: env.REFRESH_BUDGET_MS,
    pollMs,
    startupJitterMs: Math.min(pollMs, 10_000),
    signal: stop.signal,
  });
  await handle.close();
  say(`stopped after ${result.passes} pass(es), ${result.refreshed} refresh(es)`);
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`worker failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
