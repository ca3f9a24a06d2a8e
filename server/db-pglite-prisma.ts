import { type PGlite, type QueryOptions, type Results, type Transaction, types } from "@electric-sql/pglite";

/**
 * The PGlite that Prisma's adapter (pglite-prisma-adapter) is given, minus a per-statement waste
 * (docs/benchmarks.md, "adapter"; the upstream report is docs/upstream/pglite-prisma-adapter-parsers.md).
 *
 * The adapter passes its own 24 type parsers with every query, and PGlite (0.5.x `parseResults`) merges
 * them as `{ ...instance.parsers, ...options.parsers }`: a fresh copy of ~320 parsers (one per built-in type
 * and per array type) for every statement — ~0.2 ms of CPU, a fifth to a quarter of what one statement costs
 * through Prisma here (`npm run bench -- adapter`). What this changes, without changing a parsed value:
 * - the instance's table becomes a view of itself with no own properties (`Object.create(table)`): a caller
 *   that passes no parsers (migrations, tests, tools) looks types up through the prototype and finds the same
 *   functions, and the merge copies nothing from it — only the adapter's 24;
 * - what the merge no longer carries — PGlite's parsers for array types (text[], int4[]…), which the adapter
 *   does not override — arrives as the raw text PostgreSQL sent, and is parsed here by the same function the
 *   merge would have used, for those columns only.
 * Should the instance's table ever differ from PGlite's defaults for a type the merge still resolves (a
 * `parsers` option at creation, `refreshArrayTypes()` writing into the view), that parser is added to what
 * the adapter passes, so it still wins. Only the adapter passes `parsers` to this instance; another caller
 * doing so would lose the array parsers (the view is for this wrapper's use only).
 * The rest of the surface the adapter uses (`exec`, `transaction`, a transaction's `rollback`/`closed`) is
 * passed through, always calling the instance's current methods, so wrappers installed later
 * (tests/bench/sql-counter.ts) still see every statement.
 */

type TParser = (value: string, typeId?: number) => unknown;
type TParserTable = Record<number | string, TParser>;
type TQueryable = Pick<Transaction, "query" | "exec">;

const VIEW = Symbol.for("bellwether.pgliteParserView");
/** PGlite's module-level parsers: what `parseType` falls back to when a merged table has no entry. */
const FALLBACK = types.parsers as TParserTable;

export function pgliteForPrisma(pglite: PGlite): PGlite {
  const view = installParserView(pglite);
  const plan = parserPlan(view);
  const query = async <T>(target: TQueryable, sql: string, params?: unknown[], options?: QueryOptions) => {
    // Object rows or no parsers: PGlite does what it always did (the adapter asks for neither).
    if (!options?.parsers || options.rowMode !== "array") return target.query<T>(sql, params, options);
    const { passed, reparse } = plan(options.parsers as TParserTable);
    const results = await target.query<T>(
      sql,
      params,
      passed === options.parsers ? options : { ...options, parsers: passed },
    );
    reparseColumns(results, reparse);
    return results;
  };
  const queryable = (target: () => TQueryable): TQueryable => ({
    query: (sql, params, options) => query(target(), sql, params, options),
    exec: (sql, options) => target().exec(sql, options),
  });
  const client = {
    ...queryable(() => pglite),
    transaction: <T>(callback: (tx: Transaction) => Promise<T>) =>
      pglite.transaction((tx) =>
        callback({
          ...queryable(() => tx),
          sql: (strings, ...params) => tx.sql(strings, ...params),
          rollback: () => tx.rollback(),
          listen: (channel, listener) => tx.listen(channel, listener),
          get closed() {
            return tx.closed;
          },
        }),
      ),
  };
  // The adapter's constructor is typed for a whole PGlite; it uses exactly the members above (0.7.x).
  return client as unknown as PGlite;
}

/** Replaces the instance's parser table by a view with no own properties (idempotent); returns the view. */
function installParserView(pglite: PGlite): TParserTable {
  const current = pglite.parsers as TParserTable & { [VIEW]?: true };
  if (current[VIEW]) return current;
  const view = Object.create(current, { [VIEW]: { value: true } }) as TParserTable;
  pglite.parsers = view;
  return view;
}

type TPlan = {
  /** The parsers to hand PGlite: the adapter's own object unless the view overrides one of PGlite's defaults. */
  passed: TParserTable;
  /** oid → the parser the full merge would have applied to a column PGlite now leaves as text; null = none. */
  reparse: (oid: number) => TParser | null;
};

/**
 * For one adapter parser table: per type, compare what the old merge resolved (`adapter ?? instance ?? default`)
 * with what PGlite resolves now (`adapter ?? own properties of the view ?? default`). Rebuilt when the view
 * gains own properties.
 */
function parserPlan(view: TParserTable): (adapter: TParserTable) => TPlan {
  let cached: { adapter: TParserTable; ownKeys: number; plan: TPlan } | undefined;
  return (adapter) => {
    const ownKeys = Object.keys(view).length;
    if (cached?.adapter === adapter && cached.ownKeys === ownKeys) return cached.plan;
    // What the old merge resolved, and what PGlite resolves from `{ ...view, ...passed }` with its fallback.
    const before = (oid: number | string): TParser | undefined => adapter[oid] ?? view[oid] ?? FALLBACK[oid];
    const applied = (passed: TParserTable, oid: number | string): TParser | undefined =>
      passed[oid] ?? (Object.hasOwn(view, oid) ? view[oid] : undefined) ?? FALLBACK[oid];
    const extra: TParserTable = {};
    let extras = 0;
    for (const oid in view) {
      const was = before(oid);
      const is = applied(adapter, oid);
      // PGlite would apply a different parser than the old merge did: pass the old one along so it wins.
      if (is !== undefined && is !== was && was !== undefined) {
        extra[oid] = was;
        extras++;
      }
    }
    const passed = extras ? { ...adapter, ...extra } : adapter;
    const reparseByOid = new Map<number, TParser | null>();
    const plan: TPlan = {
      passed,
      reparse: (oid) => {
        let parser = reparseByOid.get(oid);
        if (parser === undefined) {
          // PGlite leaves the column as text where the old merge parsed it: parse it the old way.
          const was = before(oid);
          parser = was !== undefined && applied(passed, oid) === undefined ? was : null;
          reparseByOid.set(oid, parser);
        }
        return parser;
      },
    };
    cached = { adapter, ownKeys, plan };
    return plan;
  };
}

/** Applies `reparse` to the columns that need it, exactly as PGlite's `parseType` would have (null stays null). */
function reparseColumns(results: Results<unknown>, reparse: TPlan["reparse"]): void {
  const { fields, rows } = results;
  for (let col = 0; col < fields.length; col++) {
    const oid = (fields[col] as { dataTypeID: number }).dataTypeID;
    const parser = reparse(oid);
    if (!parser) continue;
    for (const row of rows as unknown[][]) {
      const value = row[col];
      if (value !== null) row[col] = parser(value as string, oid);
    }
  }
}
