import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryTimeline } from "@/server/timeline";
import { createActiveTracker } from "@/server/trackers";
import { runDueRefreshes } from "@/server/triggers";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startDemoSite, type TDemoSite } from "../../scripts/demo/demo-site";
import { demoTrackers } from "../../scripts/demo/demo-trackers";
import { createTestDb, type TTestDb } from "../helpers/db";
import { localCapabilityConfig } from "../helpers/trackers";

/** `npm run demo`'s site and trackers: valid definitions, and a story that produces material changes in rules mode. */
let db: TTestDb;
let site: TDemoSite;

beforeAll(async () => {
  db = await createTestDb();
  site = await startDemoSite(0);
});
afterAll(async () => {
  await site?.close();
  await db?.close();
});

describe("demo", () => {
  it("every demo tracker gets a baseline and then material changes as the site moves", async () => {
    const user = await ensureLocalUser(db.db);
    const refreshOptions = {
      models: { filler: null, judge: null },
      capabilityConfig: localCapabilityConfig([site.url]),
    };
    // The demo site is local: allowed the way `npm run demo` allows it (FETCH_ALLOW_HOSTS), at create as at refresh.
    const ids: string[] = [];
    for (const t of demoTrackers(site.url)) {
      const created = await createActiveTracker(db.db, { userId: user.id, ...t }, refreshOptions);
      ids.push(created.id);
    }
    let clock = Date.now();
    const now = () => new Date(clock);
    for (let step = 0; step < 6; step++) {
      const summary = await runDueRefreshes(db.db, {
        trigger: "worker",
        budgetMs: 30_000,
        concurrency: 2,
        now,
        refreshOptions: { ...refreshOptions, now },
      });
      expect(summary.failed + summary.errors, JSON.stringify(summary.results)).toBe(0);
      expect(summary.claimed).toBe(ids.length);
      site.advance();
      clock += 25 * 3600_000; // everything is due again
    }
    for (const id of ids) {
      const { items } = await queryTimeline(db.db, { trackerId: id });
      expect(items.at(-1)?.materiality).toBe("baseline");
      expect(items.filter((e) => e.materiality !== "baseline").length, id).toBeGreaterThan(0);
    }
    // The Acme price is money, so the feed, inbox and messages show "$39.00", not "39.0 USD".
    const acme = (await queryTimeline(db.db, { trackerId: ids[0] as string })).items.find((e) => "price" in e.delta);
    expect(acme?.delta.price?.to).toMatchObject({ currency: "USD", amount: expect.any(Number) });
  });
});
