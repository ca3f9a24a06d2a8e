import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeDb, createPgliteDb, describeDatabase, getDb, readMigrations } from "@/server/db";
import { applyMigrations, MigrationError, pgliteRunner } from "@/server/db-migrate";
import { embeddedDatabaseDir } from "@/server/db-pglite";
import { resetEnvForTests } from "@/server/env";
import { createTestDb, type TTestDb } from "../helpers/db";

const committed = readMigrations().map((m) => m.name);
const tmpDirs: string[] = [];
function tmpDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-db-open-"));
  tmpDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe("embedded database on disk", () => {
  const dataDir = path.join(tmpDir(), "pglite");

  it("applies every committed migration on first open, and records it like Prisma", async () => {
    expect(committed.length).toBeGreaterThan(0);
    const first = await createPgliteDb({ dataDir });
    try {
      expect(first.migrations.appliedNow).toEqual(committed);
      expect(first.migrations.pending).toEqual([]);
      const rows = await first.db.$queryRawUnsafe<{ migration_name: string; checksum: string; steps: number }[]>(
        `SELECT migration_name, checksum, applied_steps_count AS steps FROM "_prisma_migrations"
         WHERE finished_at IS NOT NULL ORDER BY migration_name`,
      );
      expect(rows.map((r) => r.migration_name)).toEqual(committed);
      expect(rows.map((r) => r.checksum)).toEqual(readMigrations().map((m) => m.checksum));
      await first.db.user.create({ data: { name: "Ada", email: "ada@example.com" } });
    } finally {
      await first.close();
    }
  });

  it("reopens with its data and applies nothing twice", async () => {
    const again = await createPgliteDb({ dataDir });
    try {
      expect(again.migrations.appliedNow).toEqual([]);
      expect(again.migrations.applied).toEqual(committed);
      expect(await again.db.user.findUnique({ where: { email: "ada@example.com" } })).toMatchObject({ name: "Ada" });
      const counted = await again.db.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM "_prisma_migrations"`,
      );
      expect(counted[0]?.n).toBe(committed.length);
    } finally {
      await again.close();
    }
  });

  it("is reported up to date by `prisma migrate status` (same record format)", { timeout: 180_000 }, () => {
    const result = spawnSync(process.execPath, ["scripts/prisma/cli.mjs", "migrate", "status"], {
      cwd: process.cwd(),
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: "", PGLITE_STORAGE: "disk", DATA_DIR: path.dirname(dataDir) },
    });
    expect(`${result.stdout}${result.stderr}`).toContain("Database schema is up to date");
    expect(result.status).toBe(0);
  });
});

describe("applyMigrations", () => {
  let t: TTestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(() => t.close());

  it("rolls back a failing migration completely and records nothing", async () => {
    const broken = {
      name: "29991231000000_broken",
      sql: `CREATE TABLE "Half" ("id" TEXT PRIMARY KEY); SELECT no_such_function();`,
      checksum: "0".repeat(64),
    };
    const runner = pgliteRunner(t.pglite);
    await expect(applyMigrations(runner, [...readMigrations(), broken])).rejects.toThrow(MigrationError);
    const half = await t.pglite.query<{ present: boolean }>(`SELECT to_regclass('"Half"') IS NOT NULL AS present`);
    expect(half.rows[0]?.present).toBe(false);
    const recorded = await t.pglite.query(`SELECT 1 FROM "_prisma_migrations" WHERE migration_name = $1`, [
      broken.name,
    ]);
    expect(recorded.rows).toHaveLength(0);
  });

  it("applies a new migration on top and then is idempotent", async () => {
    const next = { name: "29991231000001_extra", sql: `CREATE TABLE "Extra" ("id" TEXT PRIMARY KEY);`, checksum: "" };
    next.checksum = (await import("node:crypto")).createHash("sha256").update(next.sql).digest("hex");
    const runner = pgliteRunner(t.pglite);
    const once = await applyMigrations(runner, [...readMigrations(), next]);
    expect(once.appliedNow).toEqual([next.name]);
    const twice = await applyMigrations(runner, [...readMigrations(), next]);
    expect(twice.appliedNow).toEqual([]);
    expect(twice.modified).toEqual([]);
    // Without the extra migration in the list, the database knows one migration the code does not.
    const older = await applyMigrations(runner, readMigrations());
    expect(older.unknown).toEqual([next.name]);
  });
});

describe("getDb", () => {
  const saved = { ...process.env };
  afterEach(async () => {
    await closeDb();
    process.env = { ...saved };
    resetEnvForTests();
  });

  it("opens the configured embedded database once per process, migrated, with no user until the owner signs up", async () => {
    const dataDir = tmpDir();
    process.env.DATA_DIR = dataDir;
    delete process.env.DATABASE_URL;
    delete process.env.PGLITE_STORAGE;
    resetEnvForTests();

    const [a, b] = await Promise.all([getDb(), getDb()]);
    expect(a).toBe(b);
    expect(await a.user.count()).toBe(0);
    expect(await a.instance.count()).toBe(0);
    expect(describeDatabase()).toEqual({ kind: "embedded", location: embeddedDatabaseDir(dataDir) });
    expect(fs.existsSync(`${embeddedDatabaseDir(dataDir)}.lock`)).toBe(true);

    await closeDb();
    expect(fs.existsSync(`${embeddedDatabaseDir(dataDir)}.lock`)).toBe(false);
    const reopened = await getDb();
    expect(reopened).not.toBe(a);
    await reopened.user.create({ data: { name: "Owner", email: "owner@example.com" } });
    await closeDb();
    expect(await (await getDb()).user.count()).toBe(1);
  });
});
