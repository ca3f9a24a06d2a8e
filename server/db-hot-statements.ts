import { createHash } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import type { Prisma, PrismaClient } from "./generated/prisma/client";

/**
 * The refresh hot path's few statements (the lease read, the run's final write, the cron claim) as NAMED
 * prepared statements sent straight to the driver (tests/bench/README.md, "Named statements"; docs/benchmarks.md).
 *
 * Measured (`npm run bench -- refresh`, tests/bench/README.md): through Prisma's `$queryRaw` every call is an
 * unnamed statement, so the database parses, analyses and plans it again each time — for the lease read ~1 ms
 * of planning in PGlite's WebAssembly (0.35 ms in PostgreSQL) against ~0.3 ms of execution — and Prisma's client
 * and driver adapter add ~0.2–0.4 ms of JS per statement. A named statement is parsed once per connection and,
 * after PostgreSQL's usual five custom plans, runs from its cached generic plan.
 * - PostgreSQL: `pool.query({ name, text, values })` on the pool Prisma's adapter uses (node-postgres prepares a
 *   name once per pooled connection).
 * - PGlite (no named statements in its `query`): Parse + Describe once per statement text, then Bind + Describe
 *   + Execute + Sync as ONE protocol message per call, under the same two locks `PGlite.query` takes (so it
 *   never runs inside someone else's open transaction), results parsed by PGlite's own `parseResults`.
 * Same SQL text, same parameters, same rows as `$queryRaw` (JSON comes back as `::text` in these statements, and
 * dates are sent as ISO strings, which `timestamp` columns read as UTC, as Prisma's adapters do). A client
 * without a driver attached (a transaction client, a test's own client) takes `$queryRaw`: same statement.
 * Only callers that mark a statement hot use this; the set of texts is small and bounded (`MAX_NAMED`).
 */

type TRow = Record<string, unknown>;
export type THotDriver = {
  kind: "pglite" | "postgres";
  query<T extends TRow>(name: string, text: string, values: readonly unknown[]): Promise<T[]>;
};

/*
 * Kept on globalThis, like the client itself (db.ts): Next bundles server code more than once (instrumentation, route
 * handlers, pages), and a module-level map would be one per bundle — a client attached in one would run every hot
 * statement unnamed in the others.
 */
const hotGlobals = globalThis as { __bellwetherHotDrivers?: WeakMap<object, THotDriver> };
hotGlobals.__bellwetherHotDrivers ??= new WeakMap<object, THotDriver>();
const drivers = hotGlobals.__bellwetherHotDrivers;

/** Beyond this many distinct statement texts per process, new texts run unnamed (bounded server-side state). */
const MAX_NAMED = 64;
const names = new Map<string, string>();
const texts = new Map<string, string>();

function statementName(text: string): string | null {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMED) return null;
    name = `bw_hot_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
    names.set(text, name);
    texts.set(name, text);
  }
  return name;
}

/** The text a statement name stands for (statement counters, logs). */
export function hotStatementText(name: string): string | undefined {
  return texts.get(name);
}

/** Dates as ISO strings (UTC; a `timestamp` column ignores the "Z", as with Prisma's adapters). */
function toParam(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

/** Lets `queryHot(db, …)` reach the driver under `db` (called where the client is created). */
export function attachHotDriver<T extends PrismaClient>(db: T, driver: THotDriver): T {
  drivers.set(db, driver);
  return db;
}

/** Back to `$queryRaw` for every statement (the benchmark's "before" side). */
export function detachHotDriver(db: object): void {
  drivers.delete(db);
}

/**
 * Runs one hot statement: named and straight to the driver when `db` has one attached, else `$queryRaw`.
 * Rows as objects keyed by column name (the caller validates them, e.g. with zod).
 */
export async function queryHot<T extends TRow>(db: Pick<PrismaClient, "$queryRaw">, sql: Prisma.Sql): Promise<T[]> {
  const driver = drivers.get(db);
  const name = driver ? statementName(sql.text) : null;
  if (!driver || name === null) return db.$queryRaw<T[]>(sql);
  return driver.query<T>(name, sql.text, sql.values.map(toParam));
}

/** node-postgres: a named statement on the pool Prisma's adapter uses. */
export function postgresHotDriver(pool: pg.Pool): THotDriver {
  return {
    kind: "postgres",
    async query<T extends TRow>(name: string, text: string, values: readonly unknown[]) {
      const result = await pool.query<T>({ name, text, values: values as unknown[] });
      return result.rows;
    },
  };
}

type TPgliteInternals = PGlite & {
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
};

/**
 * PGlite: named statements over its wire-protocol API. `parsers`: the table results are parsed with (the
 * instance's, as `PGlite.query` uses).
 */
export async function pgliteHotDriver(pglite: PGlite): Promise<THotDriver> {
  const { protocol, parse } = await import("@electric-sql/pglite");
  const { serialize } = protocol;
  const db = pglite as TPgliteInternals;
  /** name → parameter type oids, per instance (a statement is prepared in the backend it was parsed in). */
  const prepared = new Map<string, number[]>();
  const concat = (parts: Uint8Array[]): Uint8Array => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let offset = 0;
    for (const part of parts) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  };
  const prepare = async (name: string, text: string): Promise<number[]> => {
    const described = await db.execProtocol(
      concat([serialize.parse({ name, text, types: [] }), serialize.describe({ type: "S", name }), serialize.sync()]),
    );
    const oids = parse.parseDescribeStatementResults(described.messages);
    prepared.set(name, oids);
    return oids;
  };
  return {
    kind: "pglite",
    query<T extends TRow>(name: string, text: string, values: readonly unknown[]) {
      // Both locks PGlite.query takes: never inside another caller's open transaction, never beside a query.
      return db._runExclusiveTransaction(() =>
        db._runExclusiveQuery(async () => {
          const oids = prepared.get(name) ?? (await prepare(name, text));
          const serialized = values.map((value, i) => {
            if (value === null || value === undefined) return null;
            const serializer = db.serializers[oids[i] as number];
            return serializer ? serializer(value) : String(value);
          });
          const { messages } = await db.execProtocol(
            concat([
              serialize.bind({ statement: name, values: serialized }),
              serialize.describe({ type: "P" }),
              serialize.execute({}),
              serialize.sync(),
            ]),
          );
          return (parse.parseResults(messages, db.parsers)[0]?.rows ?? []) as T[];
        }),
      );
    },
  };
}
