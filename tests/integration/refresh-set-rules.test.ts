import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TListingPlan } from "@/server/capabilities/web-scrape/listing";
import { detectListing } from "@/server/capabilities/web-scrape/listing";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * The set's own rules decide through a real refresh (docs/sets.md, "What changed in a set"): a listing page read by
 * web.scrape with its plan, each product's price a field whose own rule ignores it, so only the set's rule can make a
 * move material — a drop or a rise past its threshold is material and named on the roll-up; one below it is not.
 */

let t: TTestDb;
let site: TFixtureSite;
const BASE = fs.readFileSync("tests/fixtures/listings/jsonld-itemlist/base.html", "utf8");

beforeAll(async () => {
  ({ t, site } = await openSiteWorld());
});
afterAll(() => closeSiteWorld(t, site));

const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
});

/** The base listing with some products' prices replaced (each price is unique on the page). */
const priced = (prices: Record<string, string>) =>
  Object.entries(prices).reduce((html, [from, to]) => html.replace(`"price": "${from}"`, `"price": "${to}"`), BASE);

async function listingTracker(path: string, rules: unknown[], priceRule: unknown = { kind: "ignore" }) {
  site.setPage(path, { body: BASE });
  const url = site.urlFor(path);
  const found = detectListing(BASE, url);
  if (!found) throw new Error("no listing detected");
  const plan = JSON.parse(JSON.stringify(found.plan)) as TListingPlan;
  const { tracker } = await createActiveTracker(t.db, {
    capability: "web.scrape",
    capabilityInput: { url, listing: plan },
    decision: "Is the rival cutting prices?",
    definition: {
      fields: [
        { name: "name", type: "string", description: "Name", extractor: { kind: "json_pointer", pointer: "/name" } },
        {
          name: "price",
          type: "money",
          currency: "USD",
          description: "Price",
          extractor: { kind: "json_pointer", pointer: "/price" },
        },
      ],
      identityRule: { kind: "canonical_url" },
      materiality: { name: { kind: "ignore" }, price: priceRule },
      set: { missingAfter: 2, maxEntities: 200, rules },
    },
  });
  const refresh = async (prices: Record<string, string>) => {
    site.setPage(path, { body: priced(prices) });
    return refreshTracker(t.db, tracker.id, options());
  };
  expect((await refresh({})).outcome).toBe("baseline");
  return { trackerId: tracker.id, refresh };
}

/** The newest roll-up's verdict and the reason its set rule gave (the `changed` line's). */
async function lastRollUp(trackerId: string) {
  const row = await t.db.entityChange.findFirst({ where: { trackerId }, orderBy: { capturedAt: "desc" } });
  const decisions = (row?.decisions ?? {}) as Record<string, { verdict: string; reason: string }>;
  return { materiality: row?.materiality, reasons: Object.values(decisions).map((d) => d.reason) };
}

describe("set rules through a refresh", () => {
  it("any_item_drop 10 %: a 4.5 % cut is not material, a further 11.7 % cut is, named with its figures", async () => {
    const { trackerId, refresh } = await listingTracker("/rules/drop", [
      { kind: "any_item_drop", field: "price", minPercent: 10 },
    ]);
    const small = await refresh({ "449.00": "429.00" });
    expect(small.outcome).not.toBe("material");
    expect((await lastRollUp(trackerId)).materiality).toBe("baseline");

    const big = await refresh({ "449.00": "379.00" });
    expect(big.outcome).toBe("material");
    const roll = await lastRollUp(trackerId);
    expect(roll.materiality).toBe("material");
    expect(roll.reasons.join(" ")).toMatch(/Gaggia Classic Pro price dropped by 10% or more: .*429.*379.*−11\.7%/);
    // The member's own timeline says so too: its price move is material by the set's rule, though its own rule ignores it.
    const own = await t.db.memberChange.findMany({ where: { trackerId }, include: { entity: true } });
    expect(own).toHaveLength(1);
    expect(own[0]?.entity.entityKey).toContain("gaggia-classic-pro");
    expect(own[0]?.materiality).toBe("material");
    expect((own[0]?.decisions as Record<string, { verdict: string; rule?: string }> | undefined)?.price).toMatchObject({
      verdict: "material",
      rule: "set",
    });
  });

  it("any_item_rise 10 %: a 12.2 % rise is material; under a 20 % rule the same rise is not", async () => {
    const ten = await listingTracker("/rules/rise-10", [{ kind: "any_item_rise", field: "price", minPercent: 10 }]);
    expect((await ten.refresh({ "935.00": "1049.00" })).outcome).toBe("material");
    expect((await lastRollUp(ten.trackerId)).reasons.join(" ")).toMatch(
      /Rancilio Silvia V6 price rose by 10% or more: .*935.*1049.*\+12\.2%/,
    );

    const twenty = await listingTracker("/rules/rise-20", [{ kind: "any_item_rise", field: "price", minPercent: 20 }]);
    expect((await twenty.refresh({ "935.00": "1049.00" })).outcome).not.toBe("material");
    expect((await lastRollUp(twenty.trackerId)).materiality).toBe("baseline");
  });

  it("a drop is not a rise: a cut under an any_item_rise rule stays below material", async () => {
    const { trackerId, refresh } = await listingTracker("/rules/rise-only", [
      { kind: "any_item_rise", field: "price", minPercent: 5 },
    ]);
    expect((await refresh({ "1149.00": "899.00" })).outcome).not.toBe("material");
    expect((await lastRollUp(trackerId)).materiality).toBe("baseline");
  });

  it("items_changed_at_least 3: two recorded changes are notable, three are material; noise does not count", async () => {
    // AI is off, so a price left to the agent is recorded as notable: each such move counts as a change.
    const { trackerId, refresh } = await listingTracker(
      "/rules/three",
      [{ kind: "items_changed_at_least", count: 3 }],
      { kind: "ask_agent" },
    );
    const two = await refresh({ "449.00": "459.00", "935.00": "945.00" });
    expect(two.outcome).toBe("notable");
    const three = await refresh({ "449.00": "459.00", "935.00": "945.00", "2999.00": "3049.00", "1149.00": "1159.00" });
    expect(three.outcome).not.toBe("material"); // only two moved since the last read
    const more = await refresh({ "449.00": "469.00", "935.00": "955.00", "2999.00": "3099.00", "1149.00": "1159.00" });
    expect(more.outcome).toBe("material");
    expect((await lastRollUp(trackerId)).reasons.join(" ")).toMatch(/3 items changed \(at least 3\): /);
  });

  it("a price drifting by moves its rule calls noise keeps its old value, so the drift adds up to material", async () => {
    const { trackerId, refresh } = await listingTracker("/rules/drift", [], { kind: "numeric", relative: 0.1 });
    expect((await refresh({ "449.00": "429.00" })).outcome).not.toBe("material"); // −4.5 %
    const state = async () => {
      const member = await t.db.trackedEntity.findFirst({
        where: { trackerId, entityKey: { contains: "gaggia-classic-pro" } },
        include: { state: true },
      });
      return (member?.state?.fields as { price?: { amount: number } } | undefined)?.price?.amount;
    };
    expect(await state()).toBe(449);
    // −7 % from 429, but −11.1 % from the 449 still on record: material.
    expect((await refresh({ "449.00": "399.00" })).outcome).toBe("material");
    expect(await state()).toBe(399);
  });
});
