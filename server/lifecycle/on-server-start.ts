import { EnvError, getEnv } from "../env";

/**
 * Runs once in the serving process before it answers its first request (instrumentation.ts `register`):
 * a configuration the app cannot serve stops the process with one line and exit code 1 instead of
 * serving error pages (docs/operations.md, "Start and stop"). Then it opens the database — embedded migrations run
 * now, and a data directory another process took after `npm start` looked is refused here — and, when
 * `next start` leaves signals to us (NEXT_MANUAL_SIG_HANDLE, set by `npm start`), installs the graceful
 * shutdown.
 *
 * The configuration is checked before anything else is imported: some modules read it while loading
 * (the logger), and Next only logs a failing `register()` and keeps serving.
 */
export async function onServerStart(): Promise<void> {
  let env: ReturnType<typeof getEnv>;
  try {
    env = getEnv();
  } catch (error) {
    refuse(error instanceof EnvError ? error.message : String(error));
  }
  const [{ closeDb, describeDatabase, getDb }, { DataDirLockedError }, { AppError }, shutdown] = await Promise.all([
    import("../db"),
    import("../db-lock"),
    import("../errors"),
    import("./graceful-shutdown"),
  ]);
  shutdown.trackRequests();
  if (env.NEXT_MANUAL_SIG_HANDLE) {
    shutdown.handleStopSignals({ graceMs: env.SHUTDOWN_GRACE_MS, closeDatabase: closeDb });
  }
  try {
    await getDb();
  } catch (error) {
    // DataDirLockedError and AppError (NOT_CONFIGURED: unreachable or unmigrated PostgreSQL) carry a message
    // written for the operator; anything else is prefixed with where it happened.
    const message = error instanceof Error ? error.message : String(error);
    const readable = error instanceof AppError || error instanceof DataDirLockedError;
    refuse(readable ? message : `Cannot open the database (${describeDatabase().location}): ${message}`);
  }
}

/** One line on stderr, exit code 1. */
function refuse(line: string): never {
  process.stderr.write(`${line.split("\n")[0]}\n`);
  process.exit(1);
}

/**
 * What instrumentation.ts calls: onServerStart, and since Next only logs an error thrown from `register()` and
 * serves on, anything unexpected stops the process here: one line, exit 1. (Kept out of instrumentation.ts, which
 * Next also compiles for the edge runtime, where process.exit does not exist.)
 */
export async function startOrExit(): Promise<void> {
  try {
    await onServerStart();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`Cannot start the server: ${message.split("\n")[0]}\n`);
    process.exit(1);
  }
}
