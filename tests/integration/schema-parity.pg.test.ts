import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresTestDb, createTestDb, hasPostgres, type TPostgresTestDb, type TTestDb } from "../helpers/db";

/**
 * The same committed migrations must produce the same schema on embedded PGlite (applied by the
 * app's own migrator) and on PostgreSQL (applied by the real `prisma migrate deploy`), including
 * the `_prisma_migrations` table itself. This matters: PGlite 0.5 is PostgreSQL 18, the servers
 * we deploy on may be older (CI: 15).
 */

type TQuery = (sql: string) => Promise<Record<string, unknown>[]>;

const CATALOG_QUERIES = {
  tables: `SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public'`,
  columns: `SELECT table_name, column_name, ordinal_position, data_type, udt_name, is_nullable, column_default,
                   character_maximum_length, numeric_precision, numeric_scale, datetime_precision, is_identity
            FROM information_schema.columns WHERE table_schema = 'public'`,
  indexes: `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'`,
  constraints: `SELECT rel.relname AS table_name, con.conname, con.contype::text AS contype,
                       pg_get_constraintdef(con.oid) AS definition
                FROM pg_constraint con
                JOIN pg_class rel ON rel.oid = con.conrelid
                JOIN pg_namespace ns ON ns.oid = rel.relnamespace
                WHERE ns.nspname = 'public'
                  -- PGlite is PostgreSQL 18, which also lists NOT NULL as constraints (contype 'n');
                  -- older servers do not. Nullability is compared via information_schema.columns.
                  AND con.contype <> 'n'`,
  enums: `SELECT t.typname, e.enumlabel, e.enumsortorder::text AS sortorder
          FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
          JOIN pg_namespace ns ON ns.oid = t.typnamespace WHERE ns.nspname = 'public'`,
  sequences: `SELECT sequence_name, data_type, start_value, increment FROM information_schema.sequences
              WHERE sequence_schema = 'public'`,
  extensions: `SELECT extname FROM pg_extension WHERE extname <> 'plpgsql'`,
} as const;

/** Order-independent, schema-qualification-independent rows. */
function normalise(rows: Record<string, unknown>[]): string[] {
  return rows
    .map((row) =>
      JSON.stringify(
        Object.fromEntries(
          Object.entries(row).map(([k, v]) => [k, typeof v === "string" ? v.replace(/\bpublic\./g, "") : v]),
        ),
      ),
    )
    .sort();
}

async function snapshot(query: TQuery): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [name, sql] of Object.entries(CATALOG_QUERIES)) out[name] = normalise(await query(sql));
  return out;
}

describe.skipIf(!hasPostgres)("schema parity: PGlite vs PostgreSQL", () => {
  let lite: TTestDb;
  let pg: TPostgresTestDb;

  beforeAll(async () => {
    [lite, pg] = await Promise.all([createTestDb(), createPostgresTestDb({ migrate: false })]);
    const deploy = spawnSync(process.execPath, ["scripts/prisma/cli.mjs", "migrate", "deploy"], {
      cwd: process.cwd(),
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: pg.url },
    });
    if (deploy.status !== 0) throw new Error(`prisma migrate deploy failed:\n${deploy.stdout}\n${deploy.stderr}`);
  }, 180_000);

  afterAll(async () => {
    await lite?.close();
    await pg?.drop();
  });

  it("has the same tables, columns, types, nullability, defaults, indexes and constraints", async () => {
    const liteSchema = await snapshot(async (sql) => (await lite.pglite.query<Record<string, unknown>>(sql)).rows);
    const pgSchema = await snapshot((sql) => pg.db.$queryRawUnsafe<Record<string, unknown>[]>(sql));
    expect(liteSchema.tables).toContainEqual(expect.stringContaining('"User"'));
    expect(liteSchema.columns?.length).toBeGreaterThan(0);
    expect(liteSchema).toEqual(pgSchema);
  });

  it("records the same migrations with the same checksums", async () => {
    const sql = `SELECT migration_name, checksum, applied_steps_count, rolled_back_at IS NULL AS live, finished_at IS NOT NULL AS done
                 FROM "_prisma_migrations" ORDER BY migration_name`;
    const liteRows = (await lite.pglite.query(sql)).rows;
    const pgRows = await pg.db.$queryRawUnsafe(sql);
    expect(liteRows.length).toBeGreaterThan(0);
    expect(liteRows).toEqual(pgRows);
  });
});
