import type { PGlite, Transaction } from "@electric-sql/pglite";

/**
 * Counts the SQL statements and transactions the Prisma PGlite adapter sends, by wrapping this one
 * PGlite instance's `query` and `transaction` (the adapter calls both through the instance), and times
 * them. Used to explain where the hot loop's time goes; the overhead is a counter and a clock read per
 * statement. Statement times include queueing when several are in flight: read them at concurrency 1.
 * `onStatement` hears each statement's SQL text (tests count specific writes with it).
 */
export type TStatementKind = { kind: string; count: number; ms: number };

export type TSqlCounter = {
  readonly statements: number;
  readonly transactions: number;
  /** Summed wall time of the statements' promises. */
  readonly statementMs: number;
  /** Per statement kind ("UPDATE Tracker") since the last `resetKinds()`, most time first. */
  kinds(): TStatementKind[];
  resetKinds(): void;
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

export function countSql(pglite: PGlite, options: { onStatement?: (sql: string) => void } = {}): TSqlCounter {
  const counter = { statements: 0, transactions: 0, statementMs: 0 };
  let kinds = new Map<string, { count: number; ms: number }>();
  const timed = <T>(sql: unknown, promise: Promise<T>): Promise<T> => {
    counter.statements++;
    options.onStatement?.(String(sql));
    const started = performance.now();
    return promise.finally(() => {
      const ms = performance.now() - started;
      counter.statementMs += ms;
      const kind = statementKind(String(sql));
      const entry = kinds.get(kind) ?? { count: 0, ms: 0 };
      entry.count++;
      entry.ms += ms;
      kinds.set(kind, entry);
    });
  };
  const originalQuery = pglite.query;
  const originalTransaction = pglite.transaction;

  const countedQuery = function (this: PGlite, ...args: Parameters<PGlite["query"]>) {
    return timed(args[0], originalQuery.apply(this, args));
  } as PGlite["query"];

  const countedTransaction = function <T>(this: PGlite, callback: (tx: Transaction) => Promise<T>): Promise<T> {
    counter.transactions++;
    return originalTransaction.call(this, (tx: Transaction) => {
      const txQuery = tx.query;
      tx.query = function (this: Transaction, ...args: Parameters<Transaction["query"]>) {
        return timed(args[0], txQuery.apply(this, args));
      } as Transaction["query"];
      return callback(tx);
    }) as Promise<T>;
  };

  pglite.query = countedQuery;
  pglite.transaction = countedTransaction as PGlite["transaction"];
  return {
    get statements() {
      return counter.statements;
    },
    get transactions() {
      return counter.transactions;
    },
    get statementMs() {
      return counter.statementMs;
    },
    kinds() {
      return [...kinds.entries()].map(([kind, v]) => ({ kind, ...v })).sort((a, b) => b.ms - a.ms);
    },
    resetKinds() {
      kinds = new Map();
    },
    restore() {
      pglite.query = originalQuery;
      pglite.transaction = originalTransaction;
    },
  };
}
