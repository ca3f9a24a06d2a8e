import { Prisma } from "./generated/prisma/client";

/**
 * One named sub-statement (`"name" AS (…)`) of a statement composed from several owners' parts — the refresh's
 * one final write (docs/design.md §2: each table's owner supplies its part, the refresh composes them). A part that
 * needs two steps (an insert and a row depending on it) is two CTEs, the second reading the first by name.
 */
export type TCte = { name: string; sql: Prisma.Sql };

/**
 * `EXISTS (SELECT 1 FROM "guard")`: a part writes only when the statement's fencing CTE returned a row. null: the
 * part runs on its own (its owner's standalone function), always.
 */
export function guardedBy(guard: string | null): Prisma.Sql {
  if (guard === null) return Prisma.raw("TRUE");
  if (!/^[a-z_][a-z0-9_]*$/.test(guard)) throw new Error(`guardedBy: not a CTE name: ${guard}`);
  return Prisma.raw(`EXISTS (SELECT 1 FROM "${guard}")`);
}

/**
 * A condition that makes the statement's own (implicit) transaction commit without waiting for its WAL flush
 * (`synchronous_commit = off`, `set_config(…, true)`: this transaction only; PostgreSQL reverts it when it ends).
 * Only for writes whose loss in a database crash is already handled: a lease (docs/design.md §7) — a lost lease just
 * fences off its run's final write, which itself commits durably and flushes the lease's WAL with its own. Saves
 * one WAL flush per refresh, the floor's only one (tests/bench/README.md). An uncorrelated subquery: evaluated
 * once per statement; a statement that writes nothing has no flush to skip anyway.
 */
export function asyncCommitSql(): Prisma.Sql {
  return Prisma.raw(`(SELECT set_config('synchronous_commit', 'off', true)) = 'off'`);
}

/** A `json_to_recordset` column list: name → SQL type. */
type TRowColumns = Readonly<Record<string, string>>;

/**
 * `SELECT … FROM json_to_recordset(<rows>)`, typed by `columns` — the source of a set-based part (one sub-statement
 * for many rows, e.g. the claim loop's counted checks). Several owners' columns may be merged: a name two of them share
 * must have one type. Rows are sent as ONE JSON text parameter (the same with every adapter); a column a row lacks is
 * NULL.
 */
export function rowSetSql(rows: readonly object[], ...columns: TRowColumns[]): Prisma.Sql {
  const merged = new Map<string, string>();
  for (const list of columns) {
    for (const [name, type] of Object.entries(list)) {
      const seen = merged.get(name);
      if (seen !== undefined && seen !== type) throw new Error(`rowSetSql: column ${name} is both ${seen} and ${type}`);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || !/^[a-z0-9_() ]+$/.test(type))
        throw new Error(`rowSetSql: not a column: ${name} ${type}`);
      merged.set(name, type);
    }
  }
  const list = [...merged].map(([name, type]) => `"${name}" ${type}`).join(", ");
  return Prisma.sql`SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::json) AS x(${Prisma.raw(list)})`;
}
