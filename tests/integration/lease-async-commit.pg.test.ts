import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TDb } from "@/server/db";
import { attachHotDriver, postgresHotDriver } from "@/server/db-hot-statements";
import { PrismaClient } from "@/server/generated/prisma/client";
import { claimDueTrackers, leaseAndLoad, renewLease } from "@/server/intelligence/tracker-store";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition } from "../helpers/trackers";

/**
 * Issue "Refresh at the floor": a lease (taken by the refresh's read, the cron claim or a renewal) commits without
 * waiting for its WAL flush — its loss in a crash only fences off the run's final write, which commits durably —
 * so an unchanged refresh waits for one flush, as the floor does. The setting is the statement's own transaction's:
 * it must never leak to the connection the final write runs on next.
 */
describe.skipIf(!hasPostgres)("leases commit asynchronously (PostgreSQL)", () => {
  let t: TPostgresTestDb;
  beforeAll(async () => {
    t = await createPostgresTestDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  const tracker = async () =>
    (
      await createActiveTracker(t.db, {
        capability: "web.scrape",
        capabilityInput: { url: "https://shop.test/p" },
        definition: cssPriceDefinition(0.05),
      })
    ).tracker;
  const setting = async (q: { $queryRaw: TDb["$queryRaw"] }) =>
    (await q.$queryRaw<{ synchronous_commit: string }[]>`SHOW synchronous_commit`)[0]?.synchronous_commit;

  it("the lease read, a renewal and the claim turn synchronous_commit off for their own transaction", async () => {
    const { id } = await tracker();
    const now = new Date();
    expect(await setting(t.db)).toBe("on");
    const leased = await t.db.$transaction(async (tx) => {
      const result = await leaseAndLoad(tx as unknown as TDb, {
        trackerId: id,
        leaseToken: "r1:a",
        now,
        leaseMs: 30_000,
      });
      return { kind: result.kind, setting: await setting(tx) };
    });
    expect(leased).toEqual({ kind: "leased", setting: "off" });
    const renewed = await t.db.$transaction(async (tx) => {
      const held = await renewLease(tx as unknown as TDb, { trackerId: id, leaseToken: "r1:a", now, leaseMs: 60_000 });
      return { held, setting: await setting(tx) };
    });
    expect(renewed).toEqual({ held: true, setting: "off" });

    await t.db.tracker.update({
      where: { id },
      data: { leaseToken: null, leaseExpiresAt: null, nextRunAt: new Date(0) },
    });
    const claimed = await t.db.$transaction(async (tx) => {
      const rows = await claimDueTrackers(tx as unknown as TDb, { limit: 5, now, leaseMs: 30_000 });
      return { ids: rows.map((r) => r.id), setting: await setting(tx) };
    });
    expect(claimed.ids).toContain(id);
    expect(claimed.setting).toBe("off");
    // Committed all the same: the lease is there for everyone.
    expect((await t.db.tracker.findUniqueOrThrow({ where: { id } })).leaseToken).not.toBeNull();
  });

  it("outside a transaction the setting ends with the statement: the connection's next statement commits durably", async () => {
    const { id } = await tracker();
    const pool = new pg.Pool({ connectionString: t.url, max: 1 }); // one connection: the next query is on it
    const db = attachHotDriver(new PrismaClient({ adapter: new PrismaPg(pool) }), postgresHotDriver(pool));
    try {
      const result = await leaseAndLoad(db, { trackerId: id, leaseToken: "r2:a", now: new Date(), leaseMs: 30_000 });
      expect(result.kind).toBe("leased");
      expect((await pool.query("SHOW synchronous_commit")).rows[0]?.synchronous_commit).toBe("on");
      expect(await setting(db)).toBe("on");
    } finally {
      await db.$disconnect();
      await pool.end();
    }
  });
});
