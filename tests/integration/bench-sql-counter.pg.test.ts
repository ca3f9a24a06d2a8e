import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBenchDb, type TBenchDb, type TBenchDbKind } from "../bench/bench-db";
import { hasPostgres, testDatabaseUrl, withAdminClient } from "../helpers/db";

/**
 * The benchmark's statement counter (tests/bench/sql-counter.ts) on both drivers, through the same
 * bench databases `npm run bench -- --db …` uses: statements and BEGIN/COMMIT are told apart and
 * counted alike on PGlite and PostgreSQL, `measure` attributes concurrent calls to their own scope, and
 * the storage probes are not counted. The statement counts in docs/benchmarks.md rest on this.
 */

const kinds: TBenchDbKind[] = hasPostgres ? ["pglite", "postgres"] : ["pglite"];

describe.each(kinds)("bench database and statement counter on %s", (kind) => {
  let bench: TBenchDb;
  beforeAll(async () => {
    bench = await openBenchDb(kind);
    await bench.db.user.createMany({ data: [{ id: "alice", name: "Alice" }] });
  });
  afterAll(async () => {
    await bench?.close();
  });

  it("counts a statement outside a transaction as 1 and no BEGIN/COMMIT", async () => {
    const s0 = bench.sql.statements;
    const c0 = bench.sql.control;
    const r = await bench.sql.measure(() => bench.db.user.findMany({ where: { id: "alice" } }));
    expect(r.value).toHaveLength(1);
    expect({ statements: r.statements, control: r.control }).toEqual({ statements: 1, control: 0 });
    expect(bench.sql.statements - s0).toBe(1);
    expect(bench.sql.control - c0).toBe(0);
  });

  it("counts an interactive transaction's statements, and its BEGIN + COMMIT apart", async () => {
    const t0 = bench.sql.transactions;
    const r = await bench.sql.measure(() =>
      bench.db.$transaction(async (tx) => {
        await tx.user.findMany();
        await tx.user.update({ where: { id: "alice" }, data: { name: "Alice A." } });
      }),
    );
    expect({ statements: r.statements, control: r.control }).toEqual({ statements: 2, control: 2 });
    expect(bench.sql.transactions - t0).toBe(1);
  });

  it("counts a rolled-back transaction's BEGIN + ROLLBACK", async () => {
    const r = await bench.sql.measure(() =>
      bench.db
        .$transaction(async (tx) => {
          await tx.user.findMany();
          throw new Error("roll back");
        })
        .catch((error: Error) => error.message),
    );
    expect(r.value).toBe("roll back");
    expect({ statements: r.statements, control: r.control }).toEqual({ statements: 1, control: 2 });
  });

  it("attributes concurrent calls each to its own scope", async () => {
    const one = () => bench.sql.measure(() => bench.db.user.count());
    const three = () =>
      bench.sql.measure(async () => {
        for (let i = 0; i < 3; i++) await bench.db.user.findMany();
      });
    const s0 = bench.sql.statements;
    const [a, b, c] = await Promise.all([one(), three(), one()]);
    expect([a.statements, b.statements, c.statements]).toEqual([1, 3, 1]);
    expect(bench.sql.statements - s0).toBe(5);
  });

  it("does not count its own storage probe, and sees writes in it", async () => {
    const before = await bench.storage();
    const s0 = bench.sql.statements;
    await bench.db.user.createMany({
      data: Array.from({ length: 200 }, (_, i) => ({ id: `u${i}`, name: `User ${i} ${"x".repeat(200)}` })),
    });
    expect(bench.sql.statements - s0).toBe(1);
    const after = await bench.storage();
    expect(bench.sql.statements - s0).toBe(1);
    expect(after.relationBytes).toBeGreaterThan(before.relationBytes);
    expect(after.walBytes).toBeGreaterThan(before.walBytes);
  });

  it.runIf(kind === "postgres")(
    "reads the backends' CPU of a local server, and drops its database on close",
    async () => {
      const cpu = await bench.serverCpu();
      expect(cpu).not.toBeNull();
      expect(cpu?.size).toBeGreaterThan(0);
      const database = /\/(bw_bench_\w+)$/.exec(bench.label)?.[1];
      expect(database).toBeDefined();
      const other = await openBenchDb("postgres");
      const otherName = /\/(bw_bench_\w+)$/.exec(other.label)?.[1];
      await other.close();
      const left = await withAdminClient(testDatabaseUrl as string, (admin) =>
        admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [otherName]),
      );
      expect(otherName).not.toBe(database);
      expect(left.rowCount).toBe(0);
    },
  );
});
