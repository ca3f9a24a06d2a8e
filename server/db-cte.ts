import { Prisma } from "./generated/prisma/client";

/**
 * One named sub-statement (`"name" AS (…)`) of a statement composed from several owners' parts — the refresh's
 * one final write (DESIGN §2: each table's owner supplies its part, the refresh composes them). A part that
 * needs two steps (an insert and a row depending on it) is two CTEs, the second reading the first by name.
 */
export type TCte = { name: string; sql: Prisma.Sql };

/** `EXISTS (SELECT 1 FROM "guard")`: a part writes only when the statement's fencing CTE returned a row. */
export function guardedBy(guard: string): Prisma.Sql {
  if (!/^[a-z_][a-z0-9_]*$/.test(guard)) throw new Error(`guardedBy: not a CTE name: ${guard}`);
  return Prisma.raw(`EXISTS (SELECT 1 FROM "${guard}")`);
}
