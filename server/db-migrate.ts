import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * Applies the committed Prisma migrations without the Prisma CLI (which needs the schema engine):
 * each `prisma/migrations/<name>/migration.sql`, in name order, inside its own transaction, recorded
 * in `_prisma_migrations` exactly as `prisma migrate deploy` records it (same table, sha256 checksum),
 * so `prisma migrate status|deploy|dev` agree with what the app applied.
 * Not for statements that cannot run in a transaction (CREATE INDEX CONCURRENTLY); avoid them.
 */

export type TMigration = { name: string; sql: string; checksum: string };

/** The minimum a database needs to offer: simple-protocol scripts, parameterised queries, transactions. */
export type TSqlRunner = {
  exec(script: string): Promise<void>;
  query<T extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  transaction<T>(fn: (tx: TSqlRunner) => Promise<T>): Promise<T>;
};

export type TMigrationState = {
  /** `_prisma_migrations` exists. */
  initialized: boolean;
  applied: string[];
  pending: string[];
  /** Recorded in the database but absent here: the database is newer than this code. */
  unknown: string[];
  /** Started but never finished (a failed `prisma migrate deploy`); needs `prisma migrate resolve`. */
  failed: string[];
  /** Applied, but the file changed since. */
  modified: string[];
};

export type TApplyResult = TMigrationState & { appliedNow: string[] };

/** Same key as Prisma's migrate advisory lock, so the app and `prisma migrate` never interleave. */
const ADVISORY_LOCK_KEY = 72707369;

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
);`;

export class MigrationError extends Error {
  override name = "MigrationError";
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Prisma accepts a checksum taken before or after a line-ending conversion (git autocrlf). */
function checksumMatches(sql: string, checksum: string): boolean {
  return [sql, sql.replace(/\r\n/g, "\n"), sql.replace(/(?<!\r)\n/g, "\r\n")].some((s) => sha256(s) === checksum);
}

/**
 * Reads the committed migrations. The paths are written out literally, never computed from a
 * variable: Next's file tracing then bundles exactly prisma/migrations, not the whole project.
 * (Tests that need other migrations pass TMigration lists to applyMigrations directly.)
 */
export function readMigrations(): TMigration[] {
  const names = fs
    .readdirSync(path.join(process.cwd(), "prisma", "migrations"))
    .filter((name) => !name.startsWith(".") && !name.endsWith(".toml"))
    .sort();
  const migrations: TMigration[] = [];
  for (const name of names) {
    const file = path.join(process.cwd(), "prisma", "migrations", name, "migration.sql");
    if (!fs.existsSync(file)) continue; // Prisma ignores folders without a migration.sql too
    const sql = fs.readFileSync(file, "utf8");
    migrations.push({ name, sql, checksum: sha256(sql) });
  }
  return migrations;
}

type TRecordRow = {
  migration_name: string;
  checksum: string;
  finished_at: Date | string | null;
  rolled_back_at: Date | string | null;
};

/** Compares the database's record with the committed migrations. Needs only read access. */
export async function getMigrationState(
  runner: Pick<TSqlRunner, "query">,
  migrations: TMigration[] = readMigrations(),
): Promise<TMigrationState> {
  const [table] = await runner.query<{ present: boolean }>(
    `SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`,
  );
  const rows = table?.present
    ? await runner.query<TRecordRow>(
        `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
      )
    : [];
  const live = rows.filter((r) => r.rolled_back_at === null);
  const done = new Map(live.filter((r) => r.finished_at !== null).map((r) => [r.migration_name, r.checksum]));
  const known = new Set(migrations.map((m) => m.name));
  return {
    initialized: table?.present === true,
    applied: migrations.filter((m) => done.has(m.name)).map((m) => m.name),
    pending: migrations.filter((m) => !done.has(m.name)).map((m) => m.name),
    unknown: [...done.keys()].filter((name) => !known.has(name)),
    failed: [...new Set(live.filter((r) => r.finished_at === null).map((r) => r.migration_name))],
    modified: migrations
      .filter((m) => done.has(m.name) && !checksumMatches(m.sql, done.get(m.name) ?? ""))
      .map((m) => m.name),
  };
}

/** What stops the app from using a PostgreSQL database in this state, with the command that fixes it; undefined → fine. */
export function migrationStateProblem(state: TMigrationState, where: string): string | undefined {
  if (state.failed.length > 0) {
    return `The database at ${where} has a failed migration (${state.failed[0]}); resolve it with \`node scripts/prisma/cli.mjs migrate status\`.`;
  }
  if (state.pending.length > 0) {
    const what = state.initialized
      ? `is behind by ${state.pending.length} migration(s)`
      : "has no Bellwether schema yet";
    return `The database at ${where} ${what}. Run \`npm run db:migrate\` to apply them.`;
  }
  return undefined;
}

/**
 * Applies every pending migration, each in its own transaction together with its record, so a
 * failing migration leaves neither schema changes nor a record behind. Idempotent.
 */
export async function applyMigrations(
  runner: TSqlRunner,
  migrations: TMigration[] = readMigrations(),
): Promise<TApplyResult> {
  await runner.exec(CREATE_MIGRATIONS_TABLE);
  const before = await getMigrationState(runner, migrations);
  if (before.failed.length > 0) {
    throw new MigrationError(
      `Migration ${before.failed[0]} failed earlier and was never finished. Fix the database, then mark it with ` +
        "`node scripts/prisma/cli.mjs migrate resolve --rolled-back <name>` (or --applied).",
    );
  }
  const appliedNow: string[] = [];
  for (const migration of migrations) {
    if (!before.pending.includes(migration.name)) continue;
    const ran = await runner.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${ADVISORY_LOCK_KEY})`);
      // Another process may have applied it while we waited for the lock.
      const [done] = await tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "_prisma_migrations" WHERE migration_name = $1 AND finished_at IS NOT NULL AND rolled_back_at IS NULL`,
        [migration.name],
      );
      if ((done?.n ?? 0) > 0) return false;
      const [started] = await tx.query<{ at: Date }>("SELECT clock_timestamp() AS at");
      try {
        await tx.exec(migration.sql);
      } catch (error) {
        throw new MigrationError(
          `Migration ${migration.name} failed: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
      await tx.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
         VALUES ($1, $2, clock_timestamp(), $3, NULL, NULL, $4, 1)`,
        [randomUUID(), migration.checksum, migration.name, started?.at ?? new Date()],
      );
      return true;
    });
    if (ran) appliedNow.push(migration.name);
  }
  const after = await getMigrationState(runner, migrations);
  return { ...after, appliedNow };
}

/** Structural view of a PGlite instance or transaction (keeps this module free of the WASM import). */
type TPgliteLike = {
  exec(script: string): Promise<unknown>;
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
};

export function pgliteRunner(
  pglite: TPgliteLike & { transaction<T>(fn: (tx: TPgliteLike) => Promise<T>): Promise<T> },
): TSqlRunner {
  const wrap = (conn: TPgliteLike): Omit<TSqlRunner, "transaction"> => ({
    exec: async (script) => {
      await conn.exec(script);
    },
    query: async <T extends Record<string, unknown>>(sql: string, params?: unknown[]) =>
      (await conn.query<T>(sql, params)).rows,
  });
  return {
    ...wrap(pglite),
    transaction: (fn) =>
      pglite.transaction((tx) =>
        fn({
          ...wrap(tx),
          transaction: () => Promise.reject(new Error("nested transactions are not supported")),
        }),
      ),
  };
}

/** Structural view of a node-postgres Client (one connection, so BEGIN/COMMIT are on the same session). */
type TPgClientLike = { query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }> };

export function pgClientRunner(client: TPgClientLike): TSqlRunner {
  const runner: TSqlRunner = {
    exec: async (script) => {
      await client.query(script); // no parameters → simple protocol → multi-statement scripts work
    },
    query: async <T extends Record<string, unknown>>(sql: string, params?: unknown[]) =>
      (await client.query(sql, params)).rows as T[],
    transaction: async (fn) => {
      await client.query("BEGIN");
      try {
        const result = await fn({
          ...runner,
          transaction: () => Promise.reject(new Error("nested transactions are not supported")),
        });
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    },
  };
  return runner;
}
