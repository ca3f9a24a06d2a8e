import fs from "node:fs";
import { PGlite, type QueryOptions } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import type { TDb } from "@/server/db";
import { pgliteOptions } from "@/server/db-pglite";
import { pgliteForPrisma } from "@/server/db-pglite-prisma";
import { PrismaClient } from "@/server/generated/prisma/client";
import { ensurePgliteTemplate } from "../helpers/db";
import { fmt, numberOption, type TBenchFlag, type TBenchmark, table } from "./harness";
import { countSql } from "./sql-counter";
import { median } from "./stats";

/**
 * What one SQL statement costs at each layer between Bellwether and embedded PGlite: the same UPDATE … RETURNING
 * (the statement Prisma sends for `tracker.update({ select: { id } })`) through raw `PGlite.query`, through
 * `PGlite.query` the way the Prisma adapter calls it (array rows + its own parsers), through Prisma `$queryRaw` via
 * the adapter, and as a Prisma model `update` — each with the stock adapter and with the one `server/db.ts` uses
 * (`pgliteForPrisma`, which stops PGlite copying its ~320 type parsers per statement). Main-thread CPU per
 * statement (process.cpuUsage; PGlite's WASM and Prisma's query compiler run on this thread), variants
 * interleaved, order rotated every round, medians of rounds. Stock and fixed sides use two databases from the
 * same template so the stock adapter keeps its untouched instance.
 */

const ROUNDS: TBenchFlag = {
  name: "adapter-rounds",
  env: "BENCH_ADAPTER_ROUNDS",
  default: 9,
  min: 1,
  max: 100,
  integer: true,
  description: "measured rounds (after one warm-up); every variant runs once per round",
};

const STATEMENTS: TBenchFlag = {
  name: "statements",
  env: "BENCH_ADAPTER_STATEMENTS",
  default: 300,
  min: 10,
  max: 100_000,
  integer: true,
  description: "statements per variant per round",
};

const SQL =
  'UPDATE "public"."Tracker" SET "lastRunAt" = $1, "updatedAt" = $2 WHERE ("public"."Tracker"."id" = $3 AND 1=1) RETURNING "public"."Tracker"."id"';

/** Stand-in for the adapter's own 24 parsers (its table is not exported): same size, keys and shape. */
const ADAPTER_LIKE_PARSERS: NonNullable<QueryOptions["parsers"]> = Object.fromEntries(
  [1700, 1231, 1083, 1183, 1266, 1082, 1182, 1114, 1115, 1184, 1185, 790, 791, 114, 199, 3802, 3807, 17, 1001, 1561]
    .concat([1563, 143, 20, 1016])
    .map((oid) => [oid, (value: string) => value]),
);

type TSide = { pglite: PGlite; db: TDb; trackerId: string; close: () => Promise<void> };

async function openSide(template: Uint8Array<ArrayBuffer>, fixed: boolean): Promise<TSide> {
  const pglite = await PGlite.create({
    ...pgliteOptions(undefined, PGlite.defaultStartParams),
    loadDataDir: new Blob([template]),
  });
  const db = new PrismaClient({ adapter: new PrismaPGlite(fixed ? pgliteForPrisma(pglite) : pglite) });
  const user = await db.user.create({ data: { name: "Bench", email: `bench-${fixed}@bench.test` } });
  const tracker = await db.tracker.create({
    data: { userId: user.id, decision: "bench", capability: "web.scrape", capabilityInput: { url: "https://x.test" } },
  });
  return {
    pglite,
    db,
    trackerId: tracker.id,
    close: async () => {
      await db.$disconnect();
      await pglite.close();
    },
  };
}

type TVariant = { name: string; layer: string; side: "stock" | "fixed"; run: () => Promise<unknown> };

function variants(stock: TSide, fixed: TSide): TVariant[] {
  const fixedClient = pgliteForPrisma(fixed.pglite);
  const now = () => new Date();
  const raw = (side: TSide) => () => side.pglite.query(SQL, [now(), now(), side.trackerId]);
  // Looked up per call, so the statement counter (which replaces `query` on the instance) sees it.
  const asAdapter = (client: () => PGlite, id: string) => () =>
    client().query(SQL, [now(), now(), id], { rowMode: "array", parsers: ADAPTER_LIKE_PARSERS });
  const queryRaw = (side: TSide) => () => side.db.$queryRawUnsafe(SQL, now(), now(), side.trackerId);
  const update = (side: TSide) => () =>
    side.db.tracker.update({ where: { id: side.trackerId }, data: { lastRunAt: now() }, select: { id: true } });
  return [
    { name: "raw", layer: "PGlite.query", side: "stock", run: raw(stock) },
    {
      name: "adapter-call",
      layer: "PGlite.query as the adapter calls it",
      side: "stock",
      run: asAdapter(() => stock.pglite, stock.trackerId),
    },
    {
      name: "adapter-call",
      layer: "PGlite.query as the adapter calls it",
      side: "fixed",
      run: asAdapter(() => fixedClient, fixed.trackerId),
    },
    { name: "queryRaw", layer: "Prisma $queryRaw via the adapter", side: "stock", run: queryRaw(stock) },
    { name: "queryRaw", layer: "Prisma $queryRaw via the adapter", side: "fixed", run: queryRaw(fixed) },
    { name: "update", layer: "Prisma model update", side: "stock", run: update(stock) },
    { name: "update", layer: "Prisma model update", side: "fixed", run: update(fixed) },
  ];
}

/** Each variant must be exactly one statement, or the per-statement figures mean nothing. */
async function checkOneStatementEach(all: TVariant[], stock: TSide, fixed: TSide): Promise<void> {
  const counters = [countSql(stock.pglite), countSql(fixed.pglite)];
  const sum = () => counters.reduce((n, c) => n + c.statements, 0);
  try {
    for (const v of all) {
      const before = sum();
      await v.run();
      const sent = sum() - before;
      if (sent !== 1) throw new Error(`adapter bench: ${v.name} (${v.side}) sent ${sent} statements, expected 1`);
    }
  } finally {
    for (const c of counters) c.restore();
  }
}

async function measure(run: () => Promise<unknown>, statements: number): Promise<{ cpuUs: number; wallUs: number }> {
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let i = 0; i < statements; i++) await run();
  const cpu = process.cpuUsage(cpu0);
  return { cpuUs: (cpu.user + cpu.system) / statements, wallUs: ((performance.now() - wall0) * 1000) / statements };
}

export const adapterBenchmark: TBenchmark = {
  name: "adapter",
  description: "CPU per SQL statement by layer: PGlite, the Prisma adapter, Prisma raw and model queries",
  flags: [ROUNDS, STATEMENTS],
  async run(args, out) {
    const rounds = numberOption(args, ROUNDS);
    const statements = numberOption(args, STATEMENTS);
    out(
      `adapter: one UPDATE … RETURNING per call, ${statements} calls per variant per round, ${rounds} rounds (+1 warm-up)`,
    );
    const template = new Uint8Array(fs.readFileSync(await ensurePgliteTemplate()));
    const stock = await openSide(template, false);
    let fixed: TSide | undefined;
    try {
      fixed = await openSide(template, true);
      const all = variants(stock, fixed);
      await checkOneStatementEach(all, stock, fixed);
      const cpu = all.map(() => [] as number[]);
      const wall = all.map(() => [] as number[]);
      for (let round = 0; round <= rounds; round++) {
        for (let k = 0; k < all.length; k++) {
          const i = (k + round) % all.length;
          const m = await measure((all[i] as TVariant).run, statements);
          if (round === 0) continue; // warm-up
          cpu[i]?.push(m.cpuUs);
          wall[i]?.push(m.wallUs);
        }
      }
      const cpuOf = (name: string, side: "stock" | "fixed") =>
        median(cpu[all.findIndex((v) => v.name === name && (v.side === side || name === "raw"))] ?? []);
      const rawUs = cpuOf("raw", "stock");
      const rows = [["layer", "adapter", "CPU µs/stmt", "wall µs/stmt", "× raw"]];
      all.forEach((v, i) => {
        const c = median(cpu[i] ?? []);
        rows.push([
          v.layer,
          v.name === "raw" ? "–" : v.side,
          fmt(c, 0),
          fmt(median(wall[i] ?? []), 0),
          fmt(c / rawUs, 2),
        ]);
      });
      out(table(rows));
      out("");
      out("  per statement, where the CPU goes (medians; differences of the rows above):");
      const layerRows = [["", "stock", "fixed"]];
      const layer = (label: string, f: (side: "stock" | "fixed") => number) =>
        layerRows.push([label, fmt(f("stock"), 0), fmt(f("fixed"), 0)]);
      layer("PGlite (JS + WASM), raw", () => rawUs);
      layer("+ PGlite merging the adapter's parsers", (s) => cpuOf("adapter-call", s) - rawUs);
      layer("+ Prisma client + adapter, raw query", (s) => cpuOf("queryRaw", s) - cpuOf("adapter-call", s));
      layer("+ Prisma model query (compile, map)", (s) => cpuOf("update", s) - cpuOf("queryRaw", s));
      out(table(layerRows));
      out(
        `  fixed/stock CPU: $queryRaw ${fmt(cpuOf("queryRaw", "fixed") / cpuOf("queryRaw", "stock"), 2)}, ` +
          `model update ${fmt(cpuOf("update", "fixed") / cpuOf("update", "stock"), 2)}`,
      );
    } finally {
      await fixed?.close();
      await stock.close();
    }
  },
};
