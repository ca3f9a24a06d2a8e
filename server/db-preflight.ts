import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { describeConnectionError, describePostgresUrl } from "./db-connection-error";
import { findDataDirLockHolder } from "./db-lock";
import { getMigrationState, migrationStateProblem, pgClientRunner } from "./db-migrate";
import { embeddedDatabaseDir } from "./db-pglite";
import type { TEnv } from "./env";

/**
 * What `npm start` checks about the database before it builds or serves (docs/operations.md, "Start and stop"): the
 * server opens the database in its own process, so the launcher looks first and refuses with one line
 * instead of starting an app that can only answer errors. PostgreSQL: reachable (retrying for
 * DATABASE_WAIT_MS while the failure may pass) and migrated. Embedded: no other live process holds the
 * data directory. Uses `pg` directly, not the Prisma client, to keep the launcher small.
 */

export class PreflightError extends Error {
  override name = "PreflightError";
}

export type TPreflightEnv = Pick<TEnv, "DATABASE_URL" | "DATA_DIR" | "PGLITE_STORAGE" | "DATABASE_WAIT_MS">;

/** Resolves when the database can be served; throws a PreflightError whose message is one line. */
export async function preflightDatabase(env: TPreflightEnv, report: (line: string) => void): Promise<void> {
  if (env.DATABASE_URL) {
    await checkPostgres(env.DATABASE_URL, env.DATABASE_WAIT_MS, report);
    return;
  }
  if (env.PGLITE_STORAGE === "memory") return;
  const holder = findDataDirLockHolder(embeddedDatabaseDir(env.DATA_DIR));
  if (holder) throw new PreflightError(holder.message);
}

const ATTEMPT_TIMEOUT_MS = 5_000;
const RETRY_EVERY_MS = 1_000;

async function connect(url: string, timeoutMs: number): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: 15_000 });
  // A socket error after connect would otherwise be an unhandled 'error' event that kills the launcher.
  client.on("error", () => {});
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
}

async function checkPostgres(url: string, waitMs: number, report: (line: string) => void): Promise<void> {
  const where = describePostgresUrl(url);
  const started = Date.now();
  const deadline = started + waitMs;
  let client: pg.Client | undefined;
  let lastReason: string | undefined;
  while (!client) {
    const left = deadline - Date.now();
    try {
      client = await connect(url, Math.max(1_000, Math.min(ATTEMPT_TIMEOUT_MS, left)));
    } catch (error) {
      const { reason, transient } = describeConnectionError(error);
      const leftNow = deadline - Date.now();
      if (!transient || leftNow <= 0) {
        const waited =
          transient && waitMs > 0
            ? `; gave up after ${seconds(Date.now() - started, Math.round)} (DATABASE_WAIT_MS)`
            : "";
        throw new PreflightError(`Cannot reach PostgreSQL at ${where} (DATABASE_URL): ${reason}${waited}.`);
      }
      // The countdown: the reason once (again when it changes), then the time left on each retry.
      report(
        reason === lastReason
          ? `still not reachable; retrying, ${seconds(leftNow)} left…`
          : `PostgreSQL at ${where} is not reachable: ${reason}. Retrying, ${seconds(leftNow)} left…`,
      );
      lastReason = reason;
      await sleep(Math.min(RETRY_EVERY_MS, leftNow));
    }
  }
  try {
    const problem = migrationStateProblem(await getMigrationState(pgClientRunner(client)), where);
    if (problem) throw new PreflightError(problem);
  } catch (error) {
    if (error instanceof PreflightError) throw error;
    const { reason } = describeConnectionError(error);
    throw new PreflightError(`Cannot read the schema of PostgreSQL at ${where} (DATABASE_URL): ${reason}.`);
  } finally {
    await client.end().catch(() => {});
  }
}

function seconds(ms: number, round: (n: number) => number = Math.ceil): string {
  return `${Math.max(0, round(ms / 1000))} s`;
}
