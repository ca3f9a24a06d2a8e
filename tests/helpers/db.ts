import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { inject } from "vitest";
import { applyMigrations, createPostgresDb, pgClientRunner, pgliteRunner, readMigrations, type TDb } from "@/server/db";
import { attachHotDriver, pgliteHotDriver } from "@/server/db-hot-statements";
import { pgliteOptions } from "@/server/db-pglite";
import { pgliteForPrisma } from "@/server/db-pglite-prisma";
import { PrismaClient } from "@/server/generated/prisma/client";

/**
 * Databases for tests.
 * - createTestDb(): a fresh, migrated, in-memory PGlite per call (call it once per test file).
 *   initdb costs seconds, so the migrated database is built once into a template tarball under
 *   .test-data/ (keyed by migrations + PGlite version) and each call loads a copy of it (~0.7 s).
 * - createPostgresTestDb(): a uniquely named database on TEST_DATABASE_URL's server, migrated;
 *   `drop()` removes it, and the postgres project's global teardown drops any this run left behind.
 */

const TEMPLATE_DIR = path.join(process.cwd(), ".test-data");

export type TTestDb = { db: TDb; pglite: PGlite; close: () => Promise<void> };

function templateKey(): string {
  // The package does not export its package.json; its entry point is dist/index.*, one level below.
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const pgliteVersion = fs.readFileSync(path.join(path.dirname(entry), "..", "package.json"), "utf8");
  const hash = createHash("sha256")
    .update(pgliteVersion)
    .update(JSON.stringify(pgliteOptions(undefined, PGlite.defaultStartParams)));
  for (const m of readMigrations()) hash.update(m.name).update(m.checksum);
  return hash.digest("hex").slice(0, 16);
}

/** Builds (or reuses) the migrated template; safe to call from parallel workers. Returns its path. */
export async function ensurePgliteTemplate(): Promise<string> {
  const file = path.join(TEMPLATE_DIR, `pglite-template-${templateKey()}.tar`);
  if (fs.existsSync(file)) return file;
  const pglite = await PGlite.create(pgliteOptions(undefined, PGlite.defaultStartParams));
  try {
    await applyMigrations(pgliteRunner(pglite));
    const dump = await pglite.dumpDataDir("none");
    fs.mkdirSync(TEMPLATE_DIR, { recursive: true });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    fs.writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(tmp, file); // atomic: concurrent builders produce the same content
  } finally {
    await pglite.close();
  }
  for (const stale of fs.readdirSync(TEMPLATE_DIR)) {
    if (stale.startsWith("pglite-template-") && stale.endsWith(".tar") && path.join(TEMPLATE_DIR, stale) !== file) {
      fs.rmSync(path.join(TEMPLATE_DIR, stale), { force: true });
    }
  }
  return file;
}

/** A fresh in-memory PGlite with all migrations applied. Close it in afterAll. */
export async function createTestDb(): Promise<TTestDb> {
  const template = await ensurePgliteTemplate();
  const pglite = await PGlite.create({
    ...pgliteOptions(undefined, PGlite.defaultStartParams),
    loadDataDir: new Blob([fs.readFileSync(template)]),
  });
  // As the app opens it (server/db.ts): the refresh hot path's statements named, straight to PGlite.
  const db = attachHotDriver(
    new PrismaClient({ adapter: new PrismaPGlite(pgliteForPrisma(pglite)) }),
    await pgliteHotDriver(pglite),
  );
  return {
    db,
    pglite,
    close: async () => {
      await db.$disconnect();
      if (!pglite.closed) await pglite.close();
    },
  };
}

/** Empties every application table (keeps the migration record) — for suites that share one database. */
export async function truncateAll(db: TDb): Promise<void> {
  const tables = await db.$queryRawUnsafe<{ name: string }[]>(
    `SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`,
  );
  if (tables.length > 0) await db.$executeRawUnsafe(`TRUNCATE ${tables.map((t) => t.name).join(", ")} CASCADE`);
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/** Test-only setting (not app configuration), so it is read here rather than in server/env.ts. */
export const testDatabaseUrl: string | undefined = process.env.TEST_DATABASE_URL?.trim() || undefined;
export const hasPostgres = testDatabaseUrl !== undefined;

export const TEST_DATABASE_PREFIX = "bw_test_";

declare module "vitest" {
  export interface ProvidedContext {
    bellwetherTestRunId: string;
  }
}

let localRunId: string | undefined;

/** Names this run's databases; the postgres project's global setup provides it so teardown can find them. */
function runId(): string {
  let provided: string | undefined;
  try {
    provided = inject("bellwetherTestRunId");
  } catch {
    // not running under the postgres project's global setup
  }
  localRunId ??= provided ?? newTestRunId();
  return localRunId;
}

export function newTestRunId(): string {
  return `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
}

export function urlForDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function withAdminClient<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export type TPostgresTestDb = { db: TDb; url: string; database: string; drop: () => Promise<void> };

let counter = 0;

/**
 * Creates `bw_test_<run>_<n>` on TEST_DATABASE_URL's server, applies the migrations (unless
 * `migrate: false`) and returns a client. `drop()` closes the client and drops the database.
 */
export async function createPostgresTestDb(options: { migrate?: boolean } = {}): Promise<TPostgresTestDb> {
  if (!testDatabaseUrl)
    throw new Error("TEST_DATABASE_URL is not set; guard the suite with describe.skipIf(!hasPostgres)");
  const serverUrl = testDatabaseUrl;
  const database = `${TEST_DATABASE_PREFIX}${runId()}_${process.pid}_${++counter}`.toLowerCase();
  await withAdminClient(serverUrl, (admin) => admin.query(`CREATE DATABASE "${database}"`));
  const url = urlForDatabase(serverUrl, database);
  const drop = () =>
    withAdminClient(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)).then(
      () => undefined,
    );
  try {
    if (options.migrate !== false) {
      await withAdminClient(url, (client) => applyMigrations(pgClientRunner(client)));
    }
    const { db, close } = await createPostgresDb(url);
    return {
      db,
      url,
      database,
      drop: async () => {
        await close();
        await drop();
      },
    };
  } catch (error) {
    await drop().catch(() => {});
    throw error;
  }
}

/** Drops every database this run created (global teardown), whatever the tests left behind. */
export async function dropRunDatabases(serverUrl: string, run: string): Promise<string[]> {
  return withAdminClient(serverUrl, async (admin) => {
    const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE $1", [
      `${TEST_DATABASE_PREFIX}${run}\\_%`,
    ]);
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    return rows.map((r) => r.datname);
  });
}
