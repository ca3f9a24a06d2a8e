import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresDb, type TDbHandle } from "@/server/db";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { claimDueTrackers } from "@/server/intelligence/tracker-store";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb, testDatabaseUrl } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig, priceBody } from "../helpers/trackers";

/**
 * The claim's "stale" fallback on a real PostgreSQL (claim-due-trackers.ts). The claim reads each bundle
 * (entities and their hashes) from its statement's snapshot, but locks the LATEST version of each tracker row
 * (FOR UPDATE re-reads a row another transaction changed after the snapshot). When a run's final write committed
 * in between, the two differ (xmin), the bundle is marked stale, and the refresh must re-read the entity state
 * instead of trusting the bundle's hashes — else a page that went back to an earlier state would be "unchanged".
 *
 * The window (after the claim's snapshot, before it locks the row) is made deterministic: the claim runs as a
 * role under a row-level-security policy whose check waits on an advisory lock the test holds when it reaches
 * the tracker; meanwhile a real refresh (as the owner, not subject to the policy) commits a change.
 */

const LEASE_MS = 60_000;
const GATE_LOCK = 7_130_013;

describe.skipIf(!hasPostgres)("a claimed bundle that went stale before the claim locked its tracker", () => {
  let db: TPostgresTestDb;
  let gated: TDbHandle | undefined;
  let admin: pg.Client;
  let site: TFixtureSite;
  const role = `bw_test_gate_${process.pid}`;

  beforeAll(async () => {
    db = await createPostgresTestDb();
    site = await startFixtureSite();
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await gated?.close();
    await site?.close();
    // The role is the server's, not the database's: give its grants up, then drop it.
    await admin?.query(`DROP OWNED BY "${role}"`).catch(() => {});
    await admin?.end();
    await db?.drop();
    if (testDatabaseUrl) {
      const server = new pg.Client({ connectionString: testDatabaseUrl });
      await server.connect();
      await server.query(`DROP ROLE IF EXISTS "${role}"`).finally(() => server.end());
    }
  });

  const options = (now: Date): TRefreshOptions => ({
    trigger: "cron",
    models: { filler: null, judge: null },
    capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
    leaseMs: LEASE_MS,
    now: () => now,
  });

  it("is marked stale, and its refresh re-reads the state: a page back at the old price is a change", async () => {
    site.setPage("/stale", { body: priceBody("$10.00") });
    const { tracker } = await createActiveTracker(db.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/stale") },
      definition: cssPriceDefinition(0.05),
    });
    expect((await refreshTracker(db.db, tracker.id, options(new Date()))).outcome).toBe("baseline");
    const hashAt10 = (await db.db.entityCurrentState.findFirstOrThrow({ where: { entity: { trackerId: tracker.id } } }))
      .contentHash;

    // The gate: a claimer connected as `role` waits on GATE_LOCK when its scan reaches this tracker.
    await admin.query(`CREATE ROLE "${role}" LOGIN`);
    await admin.query(`GRANT ALL ON ALL TABLES IN SCHEMA public TO "${role}"`);
    await admin.query(`CREATE FUNCTION bw_test_gate(id text) RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        IF id = '${tracker.id}' THEN
          PERFORM pg_advisory_lock_shared(${GATE_LOCK});
          PERFORM pg_advisory_unlock_shared(${GATE_LOCK});
        END IF;
        RETURN true;
      END $$`);
    await admin.query(`ALTER TABLE "Tracker" ENABLE ROW LEVEL SECURITY`);
    await admin.query(`CREATE POLICY bw_test_gate ON "Tracker" USING (bw_test_gate("id")) WITH CHECK (true)`);
    const url = new URL(db.url);
    url.username = role;
    gated = await createPostgresDb(url.toString());

    await admin.query("SELECT pg_advisory_lock($1)", [GATE_LOCK]);
    // Due from the claim's point of view also after the run below sets its next run (an hour on).
    const claimNow = new Date(Date.now() + 2 * 24 * 3600_000);
    const claiming = claimDueTrackers(gated.db, { limit: 5, now: claimNow, leaseMs: LEASE_MS });
    await expect
      .poll(
        async () =>
          (
            await admin.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted",
              [GATE_LOCK],
            )
          ).rows[0]?.n,
        { timeout: 10_000 },
      )
      .toBe(1);

    // The claim has its snapshot and waits at the gate. Another run records a change to $20 and commits.
    site.setPage("/stale", { body: priceBody("$20.00") });
    expect((await refreshTracker(db.db, tracker.id, options(new Date()))).outcome).toBe("material");
    const hashAt20 = (await db.db.entityCurrentState.findFirstOrThrow({ where: { entity: { trackerId: tracker.id } } }))
      .contentHash;
    expect(hashAt20).not.toBe(hashAt10);

    await admin.query("SELECT pg_advisory_unlock($1)", [GATE_LOCK]);
    const claimed = await claiming;
    const bundle = claimed.find((c) => c.id === tracker.id);
    expect(bundle).toBeDefined();
    if (!bundle) return;
    // The bundle is the snapshot's: the hash of $10, not the committed $20 — and it says so.
    expect(bundle.entities.map((e) => e.contentHash)).toEqual([hashAt10]);
    expect(bundle.stale).toBe(true);

    // The page is back at $10: the same hash as the stale bundle's. Trusting it would answer "unchanged".
    site.setPage("/stale", { body: priceBody("$10.00") });
    const result = await refreshTracker(db.db, tracker.id, { ...options(claimNow), claimed: bundle });
    expect(result).toMatchObject({ status: "completed", outcome: "material" });
    const state = await db.db.entityCurrentState.findFirstOrThrow({ where: { entity: { trackerId: tracker.id } } });
    expect(state.contentHash).toBe(hashAt10);
    expect(state.fields).toMatchObject({ price: { amount: 10 } });
    const changes = await db.db.entityChange.count({ where: { trackerId: tracker.id, materiality: "material" } });
    expect(changes).toBe(2); // 10 → 20 by the other run, 20 → 10 by the claimed one
  });
});
