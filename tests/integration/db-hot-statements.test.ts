import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryHot } from "@/server/db-hot-statements";
import { Prisma } from "@/server/generated/prisma/client";
import { countSql } from "../bench/sql-counter";
import { createTestDb, type TTestDb } from "../helpers/db";

/**
 * The hot statements' driver path on PGlite (server/db-hot-statements.ts): named prepared statements over its
 * wire-protocol API. Same rows as `$queryRaw`; never inside another caller's open transaction; an error leaves
 * the statement usable; counted by the benchmark's counter like any other statement.
 */

let t: TTestDb;

beforeAll(async () => {
  t = await createTestDb();
  await t.pglite.exec(
    `CREATE TABLE hot_probe (id text PRIMARY KEY, n int NOT NULL, flag boolean, at timestamp(3), note text)`,
  );
  await t.pglite.exec(
    `INSERT INTO hot_probe VALUES ('a', 1, true, '2026-03-01 10:00:00', NULL), ('b', 2, false, NULL, 'x')`,
  );
});
afterAll(async () => {
  await t?.close();
});

const probe = (after: Date, ids: string[]) =>
  Prisma.sql`SELECT id, n, flag, note, (at > ${after}) AS "later", ${ids}::text[] @> ARRAY[id] AS "listed"
    FROM hot_probe ORDER BY id`;

describe("hot statements on PGlite", () => {
  it("return the same rows as $queryRaw, on the first call and once prepared", async () => {
    const sql = probe(new Date("2026-03-01T09:59:59Z"), ["a"]);
    const expected = await t.db.$queryRaw<unknown[]>(sql);
    expect(expected).toEqual([
      { id: "a", n: 1, flag: true, note: null, later: true, listed: true },
      { id: "b", n: 2, flag: false, note: "x", later: null, listed: false },
    ]);
    for (let i = 0; i < 7; i++) expect(await queryHot(t.db, sql)).toEqual(expected); // past the 5 custom plans
    // Other parameter values through the same prepared statement.
    expect(
      (await queryHot(t.db, probe(new Date("2026-03-01T10:00:01Z"), ["b"]))).map((r) => [r.later, r.listed]),
    ).toEqual([
      [false, false],
      [null, true],
    ]);
  });

  it("wait for another caller's open transaction instead of running inside it", async () => {
    const read = Prisma.sql`SELECT note FROM hot_probe WHERE id = ${"b"}`;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let hot: Promise<{ note: string | null }[]> | undefined;
    const tx = t.db
      .$transaction(async (db) => {
        await db.$executeRaw`UPDATE hot_probe SET note = 'uncommitted' WHERE id = 'b'`;
        hot = queryHot<{ note: string | null }>(t.db, read);
        await held;
        throw new Error("roll back");
      })
      .catch((error: unknown) => error);
    await expect.poll(() => hot !== undefined).toBe(true);
    let settled = false;
    void hot?.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(false); // still waiting for the transaction
    release();
    expect(await tx).toBeInstanceOf(Error);
    expect(await hot).toEqual([{ note: "x" }]); // the committed value, not the rolled-back one
  });

  it("surface a database error and stay usable", async () => {
    const insert = (id: string) => Prisma.sql`INSERT INTO hot_probe (id, n) VALUES (${id}, ${5}) RETURNING id`;
    expect(await queryHot(t.db, insert("c"))).toEqual([{ id: "c" }]);
    await expect(queryHot(t.db, insert("c"))).rejects.toThrow(/duplicate key/);
    expect(await queryHot(t.db, insert("d"))).toEqual([{ id: "d" }]);
    expect(await t.db.$queryRaw`SELECT count(*)::int AS n FROM hot_probe`).toEqual([{ n: 4 }]);
  });

  it("are counted one statement per call, with their text", async () => {
    const sent: string[] = [];
    const counter = countSql(t.pglite, { onStatement: (sql) => sent.push(sql) });
    try {
      await queryHot(t.db, probe(new Date(), []));
      await queryHot(t.db, probe(new Date(), ["a"]));
    } finally {
      counter.restore();
    }
    expect(counter.statements).toBe(2);
    expect(sent.every((sql) => sql.includes("FROM hot_probe"))).toBe(true);
  });
});
