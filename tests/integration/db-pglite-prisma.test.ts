import fs from "node:fs";
import { PGlite, type QueryOptions } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TDb } from "@/server/db";
import { pgliteOptions } from "@/server/db-pglite";
import { pgliteForPrisma } from "@/server/db-pglite-prisma";
import { PrismaClient } from "@/server/generated/prisma/client";
import { ensurePgliteTemplate } from "../helpers/db";

/**
 * `pgliteForPrisma` stops PGlite copying its whole parser table on every statement; it must not change one value
 * Prisma reads. Two databases from the same template, one behind the stock adapter and one behind the wrapper,
 * answer the same queries — every type the adapter maps, arrays with nulls and quotes, user enums before and after
 * `refreshArrayTypes()`, inside and outside transactions — and must agree exactly.
 */

type TSide = { pglite: PGlite; db: TDb };
let stock: TSide;
let fixed: TSide;

async function open(wrap: boolean): Promise<TSide> {
  const pglite = await PGlite.create({
    ...pgliteOptions(undefined, PGlite.defaultStartParams),
    loadDataDir: new Blob([new Uint8Array(fs.readFileSync(await ensurePgliteTemplate()))]),
  });
  return { pglite, db: new PrismaClient({ adapter: new PrismaPGlite(wrap ? pgliteForPrisma(pglite) : pglite) }) };
}

beforeAll(async () => {
  [stock, fixed] = await Promise.all([open(false), open(true)]);
});
afterAll(async () => {
  for (const side of [stock, fixed]) {
    await side?.db.$disconnect();
    await side?.pglite.close();
  }
});

// Every scalar and array type pglite-prisma-adapter turns into a column (fieldToColumnType), with awkward values.
const EVERY_TYPE = `SELECT
  1::int2 AS i2, '-2147483648'::int4 AS i4, 9007199254740993::int8 AS i8, 1.5::float4 AS f4, 0.1::float8 AS f8,
  true AS b, '2024-02-29'::date AS d, '23:59:59.999999'::time AS t, '12:34:56+02'::timetz AS ttz,
  '2024-02-29 12:34:56.789123'::timestamp AS ts, '2024-02-29 12:34:56.789123+02'::timestamptz AS tstz,
  '12345678901234567890.1234567890'::numeric AS n, '12.34'::money AS m,
  '{"a":[1,2.50,{"b":"é\\u0000"}],"big":12345678901234567890}'::json AS j, '{"z":1,"a":[true,null]}'::jsonb AS jb,
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, 42::oid AS o, 'ab'::char(4) AS bp, 'text' AS tx,
  'vc'::varchar AS vc, B'101' AS bit, B'1'::varbit AS vb, '10.0.0.1'::inet AS ip, '10.0.0.0/8'::cidr AS cidr,
  'nm'::name AS nm, 'c'::"char" AS ch, '\\xdeadbeef'::bytea AS by, NULL::text AS nul,
  ARRAY[1, NULL]::int2[] AS i2a, ARRAY[1, 2]::int4[] AS i4a, ARRAY[9007199254740993]::int8[] AS i8a,
  ARRAY[1.5]::float4[] AS f4a, ARRAY[0.1, NULL]::float8[] AS f8a, ARRAY['1.10', '2']::numeric[] AS na,
  ARRAY['1.00']::money[] AS ma, ARRAY[true, NULL, false]::bool[] AS ba, ARRAY['a']::"char"[] AS cha,
  ARRAY['x', 'y z']::bpchar[] AS bpa, ARRAY['a', NULL, 'b,"c"', '{}', 'NULL']::text[] AS txa,
  ARRAY['v']::varchar[] AS vca, ARRAY[B'1']::varbit[] AS vba, ARRAY[B'10']::bit(2)[] AS bita,
  ARRAY['1.1.1.1']::inet[] AS ipa, ARRAY['1.0.0.0/8']::cidr[] AS cidra, ARRAY['2024-01-01']::date[] AS da,
  ARRAY['2024-01-01 00:00:00.5']::timestamp[] AS tsa, ARRAY['2024-01-01 00:00:00+05']::timestamptz[] AS tstza,
  ARRAY['{"a":1}']::json[] AS ja, ARRAY['{"a":[1]}', NULL]::jsonb[] AS jba, ARRAY['\\x00ff']::bytea[] AS bya,
  ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']::uuid[] AS ua, ARRAY[1]::oid[] AS oa`;

async function both<T>(fn: (db: TDb) => Promise<T>): Promise<[T, T]> {
  return [await fn(stock.db), await fn(fixed.db)];
}

describe("the Prisma client on pgliteForPrisma reads what the stock adapter reads", () => {
  it("removes the per-statement copy: the instance's own parser table is empty and lookups still resolve", () => {
    expect(Object.keys(fixed.pglite.parsers)).toEqual([]);
    expect(Object.keys(stock.pglite.parsers).length).toBeGreaterThan(200);
    for (const oid of [23, 1009, 1007, 3802]) expect(fixed.pglite.parsers[oid]).toBeTypeOf("function");
  });

  it("every type the adapter maps, outside and inside a transaction", async () => {
    const [a, b] = await both((db) => db.$queryRawUnsafe<Record<string, unknown>[]>(EVERY_TYPE));
    expect(b).toEqual(a);
    // Not vacuous: array columns are parsed (the part the wrapper now does itself), not left as text.
    expect(b[0]?.txa).toEqual(["a", null, 'b,"c"', "{}", "NULL"]);
    expect(b[0]?.i4a).toEqual([1, 2]);
    const [ta, tb] = await both((db) =>
      db.$transaction(async (tx) => tx.$queryRawUnsafe<Record<string, unknown>[]>(EVERY_TYPE)),
    );
    expect(tb).toEqual(ta);
    expect(tb).toEqual(a);
  });

  it("parameters and model round trips: dates to the millisecond, JSON, nulls", async () => {
    const when = new Date("2024-02-29T23:59:59.999Z");
    const input = { url: "https://example.com/ä?q=1", nested: [1, 2.5, { deep: null }], big: 12345678901234 };
    const [a, b] = await both(async (db) => {
      const user = await db.user.create({ data: { name: "Ada", email: `ada-${db === stock.db}@example.com` } });
      const tracker = await db.tracker.create({
        data: { userId: user.id, decision: "d", capability: "web.scrape", capabilityInput: input, nextRunAt: when },
      });
      const read = await db.tracker.findUniqueOrThrow({ where: { id: tracker.id } });
      const raw = await db.$queryRaw<{ at: Date; echo: string[] }[]>`
        SELECT ${when}::timestamptz AS at, ${["x", "y"]}::text[] AS echo`;
      return { capabilityInput: read.capabilityInput, nextRunAt: read.nextRunAt, lastRunAt: read.lastRunAt, raw };
    });
    expect(b).toEqual(a);
    expect(b.nextRunAt).toEqual(when);
    expect(b.capabilityInput).toEqual(input);
  });

  it("user enums and their arrays, before and after refreshArrayTypes()", async () => {
    const sql = `SELECT 'ok'::bw_mood AS e, ARRAY['ok', NULL, 'sad']::bw_mood[] AS ea`;
    for (const side of [stock, fixed]) await side.pglite.exec(`CREATE TYPE bw_mood AS ENUM ('ok', 'sad')`);
    const [a, b] = await both((db) => db.$queryRawUnsafe(sql));
    expect(b).toEqual(a);
    // PGlite learns the new array type; on the wrapped instance that writes into the view.
    for (const side of [stock, fixed]) await side.pglite.refreshArrayTypes();
    const [c, d] = await both((db) => db.$queryRawUnsafe<{ ea: unknown }[]>(sql));
    expect(d).toEqual(c);
    expect(d[0]?.ea).toEqual(["ok", null, "sad"]);
    const [e, f] = await both((db) => db.$queryRawUnsafe(EVERY_TYPE));
    expect(f).toEqual(e);
  });

  it("raw PGlite callers on the wrapped instance see exactly what they saw before", async () => {
    const [a, b] = await Promise.all([stock.pglite.query(EVERY_TYPE), fixed.pglite.query(EVERY_TYPE)]);
    expect(b.rows).toEqual(a.rows);
    expect(b.fields).toEqual(a.fields);
    expect((b.rows[0] as { tstz: unknown }).tstz).toBeInstanceOf(Date);
  });

  it("errors map the same (unique violation → P2002, bad input → a Prisma error naming it)", async () => {
    const [a, b] = await both(async (db) => {
      await db.user.create({ data: { name: "Dup", email: `dup-${db === stock.db}@example.com` } });
      const dup = await db.user
        .create({ data: { name: "Dup", email: `dup-${db === stock.db}@example.com` } })
        .catch((e: { code?: string; meta?: unknown }) => ({ code: e.code, meta: e.meta }));
      const bad = await db.$queryRawUnsafe(`SELECT 'x'::int4`).catch((e: Error) => e.message);
      return { dup, bad };
    });
    expect(b).toEqual(a);
    expect(b.dup).toMatchObject({ code: "P2002" });
    expect(b.bad).toContain("invalid input syntax");
  });

  it("object rows and other callers' options pass through untouched", async () => {
    const client = pgliteForPrisma(fixed.pglite);
    const options: QueryOptions = { rowMode: "object" };
    const [a, b] = await Promise.all([
      stock.pglite.query(EVERY_TYPE, [], options),
      client.query(EVERY_TYPE, [], options),
    ]);
    expect(b.rows).toEqual(a.rows);
  });
});
