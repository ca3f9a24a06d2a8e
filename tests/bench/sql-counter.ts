import { AsyncLocalStorage } from "node:async_hooks";
import type { PGlite, Transaction } from "@electric-sql/pglite";
import type pg from "pg";
import { hotStatementText } from "@/server/db-hot-statements";

/**
 * Counts the SQL statements and transactions the app sends, and times them, at the driver: on PGlite by
 * wrapping the instance's `query`/`exec`/`transaction` (the Prisma PGlite adapter calls them on the
 * instance), on PostgreSQL by wrapping `query` of every client of the `pg.Pool` the Prisma pg adapter
 * uses (pool and transaction queries both go through a pooled client's `query`). Used to explain where
 * the hot loop's time goes; the overhead is a counter and a clock read per statement. Statement times
 * include queueing when several are in flight: read them at concurrency 1. `onStatement` hears each
 * statement's SQL text (tests count specific writes with it).
 *
 * Transaction control (BEGIN, COMMIT, ROLLBACK, savepoints) is counted apart from `statements`, in
 * `control`: the pg adapter sends it as SQL; PGlite runs BEGIN and COMMIT-or-ROLLBACK itself inside
 * `transaction()`, so there each transaction counts 2. `statements + control` is every statement the
 * database executes for the app, on both.
 */
export type TStatementKind = { kind: string; count: number; ms: number };

/** What one `measure()`d call sent (attributed by async context, so concurrent calls each get their own). */
export type TStatementScope = { statements: number; control: number };

export type TSqlCounter = {
  readonly statements: number;
  /** BEGIN / COMMIT / ROLLBACK / savepoint statements. */
  readonly control: number;
  readonly transactions: number;
  /** Summed wall time of the statements' promises. */
  readonly statementMs: number;
  /** Per statement kind ("UPDATE Tracker") since the last `resetKinds()`, most time first; control not included. */
  kinds(): TStatementKind[];
  resetKinds(): void;
  /** Runs `fn` and counts the statements sent on its behalf (its async context), besides the totals. */
  measure<T>(fn: () => Promise<T>): Promise<{ value: T } & TStatementScope>;
  /** Runs `fn` without counting (the benchmark's own size and WAL probes); only while nothing else runs. */
  uncounted<T>(fn: () => Promise<T>): Promise<T>;
  restore(): void;
};

/** "SELECT RefreshRun", "INSERT CapabilityCall (on conflict)", "UPDATE Tracker"… */
export function statementKind(sql: string): string {
  const text = sql.trim();
  const verb = (/^\w+/.exec(text)?.[0] ?? "?").toUpperCase();
  const table = /\b(?:FROM|INTO|UPDATE)\s+(?:"?\w+"?\.)?"?(\w+)"?/i.exec(text)?.[1] ?? "";
  const conflict = verb === "INSERT" && /\bON CONFLICT\b/i.test(text) ? " (on conflict)" : "";
  return `${verb} ${table}${conflict}`.trim();
}

const CONTROL = /^\s*(BEGIN|START\s+TRANSACTION|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
const BEGIN = /^\s*(BEGIN|START\s+TRANSACTION)\b/i;

/** The bookkeeping shared by both drivers. */
function createCounter(options: { onStatement?: (sql: string) => void }) {
  const totals = { statements: 0, control: 0, transactions: 0, statementMs: 0 };
  let kinds = new Map<string, { count: number; ms: number }>();
  let paused = false;
  const scopes = new AsyncLocalStorage<TStatementScope>();

  /** Counts one statement sent now; returns the callback to call when it settles. */
  const start = (sql: unknown): (() => void) => {
    if (paused) return () => {};
    const text = typeof sql === "string" ? sql : String((sql as { text?: unknown } | null)?.text ?? sql);
    const scope = scopes.getStore();
    if (CONTROL.test(text)) {
      totals.control++;
      if (BEGIN.test(text)) totals.transactions++;
      if (scope) scope.control++;
      return () => {};
    }
    totals.statements++;
    if (scope) scope.statements++;
    options.onStatement?.(text);
    const started = performance.now();
    return () => {
      const ms = performance.now() - started;
      totals.statementMs += ms;
      const kind = statementKind(text);
      const entry = kinds.get(kind) ?? { count: 0, ms: 0 };
      entry.count++;
      entry.ms += ms;
      kinds.set(kind, entry);
    };
  };
  const timed = <T>(sql: unknown, promise: Promise<T>): Promise<T> => {
    const done = start(sql);
    return promise.finally(done);
  };
  /** PGlite's own BEGIN + COMMIT/ROLLBACK around `transaction()`. */
  const transaction = () => {
    if (paused) return;
    totals.transactions++;
    totals.control += 2;
    const scope = scopes.getStore();
    if (scope) scope.control += 2;
  };

  const api = (restore: () => void): TSqlCounter => ({
    get statements() {
      return totals.statements;
    },
    get control() {
      return totals.control;
    },
    get transactions() {
      return totals.transactions;
    },
    get statementMs() {
      return totals.statementMs;
    },
    kinds() {
      return [...kinds.entries()].map(([kind, v]) => ({ kind, ...v })).sort((a, b) => b.ms - a.ms);
    },
    resetKinds() {
      kinds = new Map();
    },
    async measure(fn) {
      const scope: TStatementScope = { statements: 0, control: 0 };
      // Awaited inside the scope: Prisma's promises are lazy and run the query when first awaited.
      const value = await scopes.run(scope, async () => await fn());
      return { value, ...scope };
    },
    async uncounted(fn) {
      paused = true;
      try {
        return await fn();
      } finally {
        paused = false;
      }
    },
    restore,
  });
  return { start, timed, transaction, api };
}

export function countSql(pglite: PGlite, options: { onStatement?: (sql: string) => void } = {}): TSqlCounter {
  const c = createCounter(options);
  const originalQuery = pglite.query;
  const originalExec = pglite.exec;
  const originalTransaction = pglite.transaction;

  const countedQuery = function (this: PGlite, ...args: Parameters<PGlite["query"]>) {
    return c.timed(args[0], originalQuery.apply(this, args));
  } as PGlite["query"];

  const countedExec = function (this: PGlite, ...args: Parameters<PGlite["exec"]>) {
    return c.timed(args[0], originalExec.apply(this, args));
  } as PGlite["exec"];

  const countedTransaction = function <T>(this: PGlite, callback: (tx: Transaction) => Promise<T>): Promise<T> {
    c.transaction();
    return originalTransaction.call(this, (tx: Transaction) => {
      const txQuery = tx.query;
      const txExec = tx.exec;
      tx.query = function (this: Transaction, ...args: Parameters<Transaction["query"]>) {
        return c.timed(args[0], txQuery.apply(this, args));
      } as Transaction["query"];
      tx.exec = function (this: Transaction, ...args: Parameters<Transaction["exec"]>) {
        return c.timed(args[0], txExec.apply(this, args));
      } as Transaction["exec"];
      return callback(tx);
    }) as Promise<T>;
  };

  // Named statements (server/db-hot-statements.ts) go through the wire-protocol API: each Bind executes one
  // (one statement); the Parse that prepares a name once is part of its first execution, not counted apart.
  const originalProtocol = pglite.execProtocol;
  const countedProtocol = function (this: PGlite, ...args: Parameters<PGlite["execProtocol"]>) {
    const message = args[0];
    if (message[0] !== "B".charCodeAt(0)) return originalProtocol.apply(this, args);
    const [, statement = ""] = cStrings(message, 5, 2);
    return c.timed(hotStatementText(statement) ?? `EXECUTE ${statement}`, originalProtocol.apply(this, args));
  } as PGlite["execProtocol"];

  pglite.query = countedQuery;
  pglite.exec = countedExec;
  pglite.transaction = countedTransaction as PGlite["transaction"];
  pglite.execProtocol = countedProtocol;
  return c.api(() => {
    pglite.query = originalQuery;
    pglite.exec = originalExec;
    pglite.transaction = originalTransaction;
    pglite.execProtocol = originalProtocol;
  });
}

/** `count` NUL-terminated strings of a protocol message from `offset` (after the type byte and length). */
function cStrings(message: Uint8Array, offset: number, count: number): string[] {
  const out: string[] = [];
  const decoder = new TextDecoder();
  let start = offset;
  while (out.length < count && start <= message.length) {
    const end = message.indexOf(0, start);
    if (end < 0) break;
    out.push(decoder.decode(message.subarray(start, end)));
    start = end + 1;
  }
  return out;
}

/**
 * Counts what goes through `pool`: wraps `query` of each client the pool connects from now on (create
 * the pool, call this, then hand it to the adapter). Handles both call styles pg uses: promise (the
 * adapter's transaction queries) and callback (`pool.query`, which the adapter uses outside transactions).
 */
export function countPgPool(pool: pg.Pool, options: { onStatement?: (sql: string) => void } = {}): TSqlCounter {
  const c = createCounter(options);
  let active = true;
  const wrap = (client: pg.PoolClient) => {
    const original = client.query as (...args: unknown[]) => unknown;
    client.query = function (this: pg.PoolClient, ...args: unknown[]) {
      if (!active) return original.apply(this, args);
      const done = c.start(args[0]);
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === "function") {
        args[last] = (...result: unknown[]) => {
          done();
          return (callback as (...r: unknown[]) => unknown)(...result);
        };
        return original.apply(this, args);
      }
      const returned = original.apply(this, args);
      if (returned instanceof Promise) return returned.finally(done);
      done();
      return returned;
    } as pg.PoolClient["query"];
  };
  pool.on("connect", wrap);
  return c.api(() => {
    active = false;
    pool.off("connect", wrap);
  });
}

/** Runs `work` and returns what `pglite` was sent meanwhile: its value, statements, transactions and their text. */
export async function countedOn<T>(pglite: PGlite, work: () => Promise<T>) {
  const sent: string[] = [];
  const counter = countSql(pglite, { onStatement: (sql) => sent.push(sql) });
  try {
    const value = await work();
    return { value, statements: counter.statements, transactions: counter.transactions, sent };
  } finally {
    counter.restore();
  }
}
