/**
 * `npm run worker`: the scheduled-refresh claim loop, continuously, for self-hosting. Any number of
 * workers, app instances and the cron route can run together: claims use FOR UPDATE SKIP LOCKED, so
 * no tracker is refreshed twice. SIGINT/SIGTERM stop claiming, let refreshes in flight finish, exit 0.
 *
 * Needs DATABASE_URL (PostgreSQL). The embedded database (PGlite) belongs to one process — the app —
 * so with it, trigger /api/cron/refresh instead (see README "Scheduled refresh").
 */
import "./require-node.mjs"; // first: refuse to run on another Node.js major
import { parseEnvOrExit } from "../server/env";

const say = (line: string) => process.stdout.write(`[worker] ${line}\n`);

async function main() {
  const env = parseEnvOrExit();
  if (!env.DATABASE_URL) {
    process.stderr.write(
      "npm run worker needs DATABASE_URL (PostgreSQL): the embedded database can only be opened by one process, the app. " +
        "Without PostgreSQL, call the app's /api/cron/refresh on a schedule instead (see README, Scheduled refresh).\n",
    );
    process.exit(1);
  }
  const [{ createPostgresDb }, { runWorker }] = await Promise.all([
    import("../server/db"),
    import("../server/triggers/run-worker"),
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
  say(
    `started: concurrency ${env.REFRESH_CONCURRENCY}, budget ${env.REFRESH_BUDGET_MS} ms per pass, poll ${env.WORKER_POLL_MS} ms`,
  );
  const result = await runWorker(handle.db, {
    concurrency: env.REFRESH_CONCURRENCY,
    budgetMs: env.REFRESH_BUDGET_MS,
    pollMs: env.WORKER_POLL_MS,
    startupJitterMs: Math.min(env.WORKER_POLL_MS, 10_000),
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
