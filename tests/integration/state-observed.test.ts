import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { getTrackerOverview, getTrackersList } from "@/server/trackers";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig } from "../helpers/trackers";

/**
 * Observed and baseline, both kept (docs/refresh.md): a numeric rule that calls a move noise keeps the old value
 * as the baseline the rules compare against (so drift still crosses the threshold), while the state says
 * what the page says now.
 */
const definition = cssPriceDefinition(0.05);

let t: TTestDb;
let site: TFixtureSite;
beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
  await t?.close();
});

const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url]),
});

describe("current state: observed and baseline", () => {
  it("a noise refresh shows the new observed value beside the kept baseline; a material one makes them agree", async () => {
    site.setPage("/obs", { body: `<main><span id="price">$100.00</span></main>` });
    const { tracker, userId } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/obs") },
      definition,
    });
    const state = async () => (await getTrackerOverview(t.db, { userId, trackerId: tracker.id })).state;
    await refreshTracker(t.db, tracker.id, options());
    expect(await state()).toMatchObject({
      fields: { price: { amount: 100, currency: "USD" } },
      observed: { price: { amount: 100, currency: "USD" } },
    });

    site.setPage("/obs", { body: `<main><span id="price">$102.00</span></main>` }); // +2 %: noise
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("noise");
    expect(await state()).toMatchObject({
      fields: { price: { amount: 100, currency: "USD" } },
      observed: { price: { amount: 102, currency: "USD" } },
    });

    // The trackers list shows what the page says now, too.
    const listed = (await getTrackersList(t.db, { userId })).trackers.find((r) => r.id === tracker.id);
    expect(listed?.values.find((v) => v.name === "price")?.text).toMatch(/102/);

    site.setPage("/obs", { body: `<main><span id="price">$104.00</span></main>` }); // +4 % vs baseline: still noise
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("noise");
    expect((await state())?.observed).toMatchObject({ price: { amount: 104, currency: "USD" } });

    site.setPage("/obs", { body: `<main><span id="price">$106.00</span></main>` }); // +6 % vs the baseline 100
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("material");
    const after = await state();
    expect(after?.fields).toMatchObject({ price: { amount: 106, currency: "USD" } });
    expect(after?.observed).toEqual(after?.fields);
  });
});
