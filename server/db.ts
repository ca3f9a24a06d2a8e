import fs from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import { describeConnectionError, describePostgresUrl } from "./db-connection-error";
import { attachHotDriver, pgliteHotDriver, postgresHotDriver } from "./db-hot-statements";
import { acquireDataDirLock } from "./db-lock";
import {
  applyMigrations,
  getMigrationState,
  migrationStateProblem,
  pgliteRunner,
  type TApplyResult,
} from "./db-migrate";
import { embeddedDatabaseDir, initClusterInChild, pgliteOptions } from "./db-pglite";
import { getEnv } from "./env";
import { AppError, databaseUnavailableError, isAppError } from "./errors";
import { type Prisma, PrismaClient } from "./generated/prisma/client";
import { logger } from "./logger";

export { describePostgresUrl } from "./db-connection-error";
export type { TApplyResult, TMigrationState, TSqlRunner } from "./db-migrate";
export { applyMigrations, getMigrationState, pgClientRunner, pgliteRunner, readMigrations } from "./db-migrate";

/** The database client every domain function takes as its first argument. */
export type TDb = PrismaClient;
/** The client inside `db.$transaction(async (tx) => …)`; functions that can run in either accept `TDb | TTx`. */
export type TTx = Prisma.TransactionClient;

export type TDbHandle = { db: TDb; close: () => Promise<void> };
export type TPgliteDbHandle = TDbHandle & { pglite: PGlite; migrations: TApplyResult };

/**
 * Opens embedded PGlite (`dataDir` undefined → in memory), locks the directory against other
 * processes and applies every pending committed migration before handing out the client.
 */
export async function createPgliteDb(options: { dataDir?: string } = {}): Promise<TPgliteDbHandle> {
  const dataDir = options.dataDir;
  let release: (() => void) | undefined;
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true });
    release = acquireDataDirLock(dataDir);
  }
  let pglite: PGlite | undefined;
  try {
    // Loaded on demand: a PostgreSQL deployment never loads the WASM database, and vice versa.
    const [{ PGlite }, { PrismaPGlite }, { pgliteForPrisma }] = await Promise.all([
      import("@electric-sql/pglite"),
      import("pglite-prisma-adapter"),
      import("./db-pglite-prisma"),
    ]);
    if (dataDir) await initClusterInChild(dataDir, PGlite.defaultStartParams);
    pglite = await PGlite.create(pgliteOptions(dataDir, PGlite.defaultStartParams));
    const migrations = await applyMigrations(pgliteRunner(pglite));
    const db = attachHotDriver(
      new PrismaClient({ adapter: new PrismaPGlite(pgliteForPrisma(pglite)) }),
      await pgliteHotDriver(pglite),
    );
    const opened = pglite;
    return {
      db,
      pglite: opened,
      migrations,
      close: async () => {
        try {
          await db.$disconnect();
          if (!opened.closed) await opened.close();
        } finally {
          release?.();
        }
      },
    };
  } catch (error) {
    if (pglite && !pglite.closed) await pglite.close().catch(() => {});
    release?.();
    throw error;
  }
}

/**
 * How long a pooled PostgreSQL connection may sit idle before it is closed: longer than the scheduler's idle poll
 * (15 s) and a pass's spacing, so each poll and pass reuses a warm backend (its caches and plans) instead of opening
 * one (node-postgres closes them after 10 s by default).
 */
const POOL_IDLE_MS = 5 * 60_000;

/**
 * A client for any PostgreSQL. Migrations are not applied here (that is `npm run db:migrate`);
 * with `checkMigrations` a missing or outdated schema fails now with instructions instead of later
 * with a confusing query error.
 */
export async function createPostgresDb(url: string, options: { checkMigrations?: boolean } = {}): Promise<TDbHandle> {
  const [{ PrismaPg }, { default: pg }] = await Promise.all([import("@prisma/adapter-pg"), import("pg")]);
  // Our own pool, shared with Prisma's adapter: the refresh hot path's statements go to it directly, named
  // (db-hot-statements.ts). An idle connection the server drops is replaced on next use, not a crash.
  const pool = new pg.Pool({ connectionString: url, idleTimeoutMillis: POOL_IDLE_MS });
  pool.on("error", (error) => logger.warn("idle database connection lost", { message: error.message }));
  const db = attachHotDriver(new PrismaClient({ adapter: new PrismaPg(pool) }), postgresHotDriver(pool));
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= db.$disconnect().finally(() => pool.end());
    return closing;
  };
  if (options.checkMigrations) {
    try {
      await assertMigrated(db, describePostgresUrl(url));
    } catch (error) {
      await close().catch(() => {});
      throw error;
    }
  }
  return { db, close };
}

async function assertMigrated(db: TDb, where: string): Promise<void> {
  let state: Awaited<ReturnType<typeof getMigrationState>>;
  try {
    state = await getMigrationState({
      query: <T>(sql: string, params: unknown[] = []) => db.$queryRawUnsafe<T[]>(sql, ...params),
    });
  } catch (error) {
    const { reason } = describeConnectionError(error);
    throw new AppError(
      "NOT_CONFIGURED",
      `Cannot reach the PostgreSQL database at ${where} (DATABASE_URL): ${reason}.`,
      {
        cause: error,
      },
    );
  }
  const problem = migrationStateProblem(state, where);
  if (problem) throw new AppError("NOT_CONFIGURED", problem);
  if (state.unknown.length > 0) {
    logger.warn("database has migrations this code does not know; is the app older than the database?", {
      unknown: state.unknown,
    });
  }
}

export function describeDatabase(): { kind: "embedded" | "postgres"; location: string } {
  const env = getEnv();
  if (env.DATABASE_URL) return { kind: "postgres", location: describePostgresUrl(env.DATABASE_URL) };
  if (env.PGLITE_STORAGE === "memory") return { kind: "embedded", location: "in memory (PGLITE_STORAGE=memory)" };
  return { kind: "embedded", location: embeddedDatabaseDir(env.DATA_DIR) };
}

async function openConfigured(): Promise<TDbHandle> {
  const env = getEnv();
  const started = performance.now();
  let handle: TDbHandle;
  if (env.DATABASE_URL) {
    handle = await createPostgresDb(env.DATABASE_URL, { checkMigrations: true });
  } else {
    const embedded = await createPgliteDb({
      dataDir: env.PGLITE_STORAGE === "memory" ? undefined : embeddedDatabaseDir(env.DATA_DIR),
    });
    if (embedded.migrations.appliedNow.length > 0) {
      logger.info("applied migrations to the embedded database", { migrations: embedded.migrations.appliedNow });
    }
    if (embedded.migrations.modified.length > 0) {
      logger.warn("committed migrations changed after they were applied", { migrations: embedded.migrations.modified });
    }
    handle = embedded;
  }
  // No user is created here: a fresh install waits for its owner account (server/auth), which also adopts the
  // legacy local user's data on an install from before accounts.
  logger.info("database ready", { ...describeDatabase(), ms: Math.round(performance.now() - started) });
  return handle;
}

// One client per process; kept on globalThis so Next dev's module reloads reuse it instead of
// opening the PGlite directory a second time (which the lock would refuse).
type TDbSingleton = { opening?: Promise<TDbHandle> };
const dbGlobals = globalThis as { __bellwetherDb?: TDbSingleton };
dbGlobals.__bellwetherDb ??= {};
const singleton = dbGlobals.__bellwetherDb;

export async function getDb(): Promise<TDb> {
  if (!singleton.opening) {
    const opening = openConfigured();
    singleton.opening = opening;
    // A failed open is not cached: the next call retries (e.g. once the other process stopped).
    opening.catch(() => {
      if (singleton.opening === opening) singleton.opening = undefined;
    });
  }
  try {
    return (await singleton.opening).db;
  } catch (error) {
    // Opened while PostgreSQL is down (a cold start, a restart): a 503 with Retry-After like any request during
    // the outage, not the 412 "cannot reach … (DATABASE_URL)" meant for the launcher and scripts.
    throw databaseUnavailableError(isAppError(error) ? error.cause : error) ?? error;
  }
}

export async function closeDb(): Promise<void> {
  const opening = singleton.opening;
  singleton.opening = undefined;
  if (!opening) return;
  const handle = await opening.catch(() => undefined);
  await handle?.close();
}
