import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { applyMigrations, describePostgresUrl, pgClientRunner, type TDb } from "@/server/db";
import { attachHotDriver, detachHotDriver, postgresHotDriver } from "@/server/db-hot-statements";
import { PrismaClient } from "@/server/generated/prisma/client";
import { createTestDb, testDatabaseUrl, urlForDatabase, withAdminClient } from "../helpers/db";
import { BenchUsageError, type TBenchArgs, type TBenchChoiceFlag } from "./harness";
import { countPgPool, countSql, type TSqlCounter } from "./sql-counter";

/**
 * The databases a benchmark can run on: in-memory PGlite (as the tests use it) or a throw-away database
 * on TEST_DATABASE_URL's PostgreSQL server (created and migrated here, dropped on close, like the
 * *.pg.test.ts tests' databases). Both come with a statement counter at the driver (sql-counter.ts) and
 * two probes the benchmark reads between measured passes, never inside one:
 *   storage()   bytes of the app's tables + indexes + TOAST (pg_total_relation_size, the same SQL on both)
 *               and the WAL insert position (PGlite: this instance only; PostgreSQL: the whole cluster).
 *   serverCpu() CPU time of the PostgreSQL backends serving this database (from /proc/<pid>/schedstat of
 *               the pids pg_stat_activity lists), when the server runs on this machine; PGlite runs in
 *               this process, so its CPU is already in process.cpuUsage().
 */

export type TBenchDbKind = "pglite" | "postgres";
export type TBenchDbChoice = TBenchDbKind | "both";

export const DB_FLAG: TBenchChoiceFlag<TBenchDbChoice> = {
  name: "db",
  env: "BENCH_DB",
  default: "pglite",
  choices: ["pglite", "postgres", "both"],
  description: "database: in-memory PGlite, a throw-away database on TEST_DATABASE_URL's PostgreSQL, or both",
};

/** Before/after for the hot statements (server/db-hot-statements.ts): named on the driver, or `$queryRaw`. */
export type TBenchStatements = "named" | "unnamed";
export const STATEMENTS_FLAG: TBenchChoiceFlag<TBenchStatements> = {
  name: "statements",
  env: "BENCH_STATEMENTS",
  default: "named",
  choices: ["named", "unnamed"],
  description:
    "the refresh hot path's statements: named prepared statements on the driver (as the app runs), or through Prisma's $queryRaw (before)",
};

export const BENCH_DATABASE_PREFIX = "bw_bench_";

export function dbKinds(choice: TBenchDbChoice): TBenchDbKind[] {
  return choice === "both" ? ["pglite", "postgres"] : [choice];
}

/** For `validate`: PostgreSQL needs TEST_DATABASE_URL, and the refusal should come before anything runs. */
export function assertDbAvailable(choice: TBenchDbChoice, args: TBenchArgs): void {
  if (choice !== "pglite" && !args.env.TEST_DATABASE_URL?.trim()) {
    throw new BenchUsageError(
      `--db ${choice} needs TEST_DATABASE_URL (a PostgreSQL server URL whose user may create databases, e.g. postgresql://postgres@127.0.0.1:5432/postgres).`,
    );
  }
}

export type TStorage = { relationBytes: number; walBytes: number };

/** CPU ns per backend pid; subtract two with `cpuDeltaMs`. */
export type TServerCpu = Map<number, number>;

export type TBenchDb = {
  kind: TBenchDbKind;
  /** "PGlite (in memory)", "PostgreSQL 15.20 at 127.0.0.1:5432/bw_bench_…". */
  label: string;
  db: TDb;
  sql: TSqlCounter;
  /** What the WAL figure covers. */
  walScope: string;
  storage(): Promise<TStorage>;
  /** null: not measurable (PGlite: in-process; PostgreSQL: server not on this machine). */
  serverCpu(): Promise<TServerCpu | null>;
  close(): Promise<void>;
};

const STORAGE_SQL = `SELECT
  (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm', 'p'))::bigint::text AS "relationBytes",
  pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint::text AS "walBytes"`;

function toStorage(row: { relationBytes: string; walBytes: string } | undefined): TStorage {
  return { relationBytes: Number(row?.relationBytes ?? Number.NaN), walBytes: Number(row?.walBytes ?? Number.NaN) };
}

export function storageDelta(before: TStorage, after: TStorage): TStorage {
  return { relationBytes: after.relationBytes - before.relationBytes, walBytes: after.walBytes - before.walBytes };
}

/** CPU ms the backends used between two snapshots; a backend that started in between counts from zero. */
export function cpuDeltaMs(before: TServerCpu | null, after: TServerCpu | null): number {
  if (!before || !after) return Number.NaN;
  let ns = 0;
  for (const [pid, value] of after) ns += value - (before.get(pid) ?? 0);
  return ns / 1e6;
}

export async function openBenchDb(kind: TBenchDbKind, statements: TBenchStatements = "named"): Promise<TBenchDb> {
  const bench = kind === "pglite" ? await openPglite() : await openPostgres();
  if (statements === "unnamed") detachHotDriver(bench.db);
  return bench;
}

async function openPglite(): Promise<TBenchDb> {
  const handle = await createTestDb();
  const sql = countSql(handle.pglite);
  return {
    kind: "pglite",
    label: "PGlite (in memory, in this process)",
    db: handle.db,
    sql,
    walScope: "this PGlite instance",
    storage: () => sql.uncounted(async () => toStorage((await handle.pglite.query<TStorageRow>(STORAGE_SQL)).rows[0])),
    serverCpu: async () => null,
    close: async () => {
      sql.restore();
      await handle.close();
    },
  };
}

type TStorageRow = { relationBytes: string; walBytes: string };

function isLocalHost(url: string): boolean {
  const u = new URL(url);
  const host = u.hostname || u.searchParams.get("host") || "localhost";
  return ["localhost", "127.0.0.1", "[::1]", "::1"].includes(host) || host.startsWith("/");
}

function readSchedstatNs(pid: number): number | undefined {
  try {
    if (fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") return undefined;
    const ns = Number(fs.readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
    return Number.isFinite(ns) ? ns : undefined;
  } catch {
    return undefined; // gone, or another pid namespace
  }
}

async function openPostgres(): Promise<TBenchDb> {
  const serverUrl = testDatabaseUrl;
  if (!serverUrl) throw new BenchUsageError("TEST_DATABASE_URL is not set; --db postgres needs it.");
  const database = `${BENCH_DATABASE_PREFIX}${process.pid}_${randomBytes(3).toString("hex")}`;
  await withAdminClient(serverUrl, (admin) => admin.query(`CREATE DATABASE "${database}"`));
  const url = urlForDatabase(serverUrl, database);
  const drop = () =>
    withAdminClient(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
  let pool: pg.Pool | undefined;
  let probe: pg.Client | undefined;
  let db: TDb | undefined;
  try {
    await withAdminClient(url, (client) => applyMigrations(pgClientRunner(client)));
    // The same pool the app's createPostgresDb gets from PrismaPg({ connectionString }), made here so it can be counted.
    pool = new pg.Pool({ connectionString: url });
    // Like the adapter's own listener (it only logs): a pooled connection that the DROP at the end
    // terminates before its socket closed must not crash the run.
    pool.on("error", () => {});
    const sql = countPgPool(pool);
    // As server/db.ts opens PostgreSQL: the hot statements named, on the same (counted) pool.
    db = attachHotDriver(new PrismaClient({ adapter: new PrismaPg(pool) }), postgresHotDriver(pool));
    // The probes' own connection, outside the pool: never counted, never in the CPU figure.
    probe = new pg.Client({ connectionString: url });
    probe.on("error", () => {});
    await probe.connect();
    const probePid = Number((await probe.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid);
    const version =
      (await probe.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ?? "?";
    const local = isLocalHost(url) && readSchedstatNs(probePid) !== undefined;
    const client = probe;
    const opened = { pool, db };
    return {
      kind: "postgres",
      label: `PostgreSQL ${version.split(" ")[0]} at ${describePostgresUrl(url)}`,
      db,
      sql,
      walScope: "the whole PostgreSQL cluster (other sessions' writes included)",
      storage: async () => toStorage((await client.query<TStorageRow>(STORAGE_SQL)).rows[0]),
      serverCpu: async () => {
        if (!local) return null;
        const { rows } = await client.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
        );
        const cpu: TServerCpu = new Map();
        for (const { pid } of rows) {
          const ns = readSchedstatNs(pid);
          if (ns !== undefined) cpu.set(pid, ns);
        }
        return cpu;
      },
      close: async () => {
        sql.restore();
        try {
          await Promise.allSettled([opened.db.$disconnect(), client.end()]);
          await opened.pool.end().catch(() => {});
        } finally {
          await drop();
        }
      },
    };
  } catch (error) {
    await Promise.allSettled([db?.$disconnect(), probe?.end()]);
    await pool?.end().catch(() => {});
    await drop().catch(() => {});
    throw error;
  }
}

/** What one measured stretch cost: app-process CPU, PostgreSQL backend CPU (NaN when not measurable), storage growth, WAL. */
export type TResources = { cpuMs: number; serverCpuMs: number; relationBytes: number; walBytes: number };

export type TResourceMark = { cpu: NodeJS.CpuUsage; storage: TStorage; server: TServerCpu | null };

export const NO_RESOURCES: TResources = { cpuMs: 0, serverCpuMs: 0, relationBytes: 0, walBytes: 0 };

/** Probes first, CPU clock last: the probes' own cost stays outside the stretch. */
export async function markResources(bench: TBenchDb): Promise<TResourceMark> {
  const [storage, server] = [await bench.storage(), await bench.serverCpu()];
  return { storage, server, cpu: process.cpuUsage() };
}

/** CPU clock first, then the probes. */
export async function resourcesSince(bench: TBenchDb, mark: TResourceMark): Promise<TResources> {
  const cpu = process.cpuUsage(mark.cpu);
  const [storage, server] = [await bench.storage(), await bench.serverCpu()];
  const bytes = storageDelta(mark.storage, storage);
  return { cpuMs: (cpu.user + cpu.system) / 1000, serverCpuMs: cpuDeltaMs(mark.server, server), ...bytes };
}

export function addResources(a: TResources, b: TResources): TResources {
  return {
    cpuMs: a.cpuMs + b.cpuMs,
    serverCpuMs: a.serverCpuMs + b.serverCpuMs,
    relationBytes: a.relationBytes + b.relationBytes,
    walBytes: a.walBytes + b.walBytes,
  };
}
