import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { createSetupSession, getSetupState } from "@/server/intelligence/setup";
import { queryTimeline } from "@/server/timeline";
import {
  CORPUS_PAGES,
  insertAboveProduct,
  ownPriceOf,
  PROMO_AND_AD,
  type TCorpusPage,
  volatileFor,
} from "../fixtures/corpus/pages";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { dataPart, setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * Drafts anchored by meaning, end to end (docs/intelligence.md): a rules-mode setup turn drafts from the page the
 * fixture site serves, "looks good" locks it, the first refresh records the baseline; then the page is
 * served with a promotional line and an ad with a price inserted above the product → the refresh records
 * no change row; then the product's real price changes → one material change naming the price field; then
 * its stock → material again (any change of availability counts).
 */

let t: TTestDb;
let site: TFixtureSite;
let userId: string;

beforeAll(async () => ({ t, site, userId } = await openSiteWorld()));
afterAll(() => closeSiteWorld(t, site));

const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url]),
});
const turn = (sessionId: string, text: string) =>
  setupTurn(t.db, { userId, sessionId, text, config: localCapabilityConfig([site.url]), model: null });
const changeRows = (trackerId: string) => t.db.entityChange.count({ where: { trackerId } });

/** One page of each anchoring kind: CSS scoped past a same-class ad, struck-through sale, heading, label, offers. */
const PAGES = ["ad-same-class", "sale-del-ins", "promo-line-above", "label-price", "text-de", "jsonld-offer"].map(
  (id) => CORPUS_PAGES.find((p) => p.id === id) as TCorpusPage,
);

describe("a drafted price field holds when the page moves", () => {
  it.each(PAGES.map((p) => [p.id, p] as const))(
    "%s: a promotion and an ad above the product → no change row; the real price → material",
    async (_id, page) => {
      site.setPage(page.path, { body: page.render(page.base, volatileFor(0)) });
      const session = await createSetupSession(t.db, { userId });
      const drafted = await turn(session.id, `Tell me when the price or stock changes — ${site.urlFor(page.path)}`);
      expect(dataPart(drafted.reply, "draft")).toMatchObject({ status: "saved" });
      const state = await getSetupState(t.db, { userId, sessionId: session.id });
      const fields = state.draft?.definition.fields ?? [];
      const price = fields.find((f) => f.type === "money");
      expect(price, JSON.stringify(fields)).toBeDefined();
      expect(JSON.stringify(fields)).not.toContain('"/prices/');
      expect(fields.some((f) => f.name === "availability")).toBe(true);
      expect(dataPart((await turn(session.id, "looks good")).reply, "locked")).toMatchObject({ version: 1 });
      const trackerId = state.tracker?.id ?? "";
      const name = price?.name ?? "";

      expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("baseline");
      const baseline = await t.db.entityCurrentState.findFirst({ where: { entity: { trackerId } } });
      const want = ownPriceOf(page, page.base);
      expect(baseline?.fields).toMatchObject({ [name]: want });
      expect(await changeRows(trackerId)).toBe(1);

      // A promotion line and an ad with a price of its own, above the product: the page changed, the price did not.
      site.setPage(page.path, { body: insertAboveProduct(page.render(page.base, volatileFor(1)), PROMO_AND_AD) });
      const promo = await refreshTracker(t.db, trackerId, options());
      expect(promo.status).toBe("completed");
      // The page's hash moved (new text), the fill ran, and no tracked field changed: no row, no alert.
      expect(promo).toMatchObject({ outcome: "noise", summary: "no tracked field changed" });
      expect(await changeRows(trackerId)).toBe(1);

      // The product's own price changes (promotion and ad still there): one material change, on the price field.
      const next = ownPriceOf(page, page.priceChange);
      site.setPage(page.path, {
        body: insertAboveProduct(page.render(page.priceChange, volatileFor(2)), PROMO_AND_AD),
      });
      const priced = await refreshTracker(t.db, trackerId, options());
      expect(priced).toMatchObject({ outcome: "material" });
      expect(await changeRows(trackerId)).toBe(2);
      const [latest] = (await queryTimeline(t.db, { trackerId })).items;
      expect(latest).toMatchObject({ materiality: "material", delta: { [name]: { from: want, to: next } } });
      expect(Object.keys(latest?.delta ?? {})).toEqual([name]);

      // Out of stock: availability is material on any change.
      if (page.availabilityChange) {
        site.setPage(page.path, {
          body: page.render({ ...page.availabilityChange, price: page.priceChange.price }, volatileFor(3)),
        });
        const stock = await refreshTracker(t.db, trackerId, options());
        expect(stock).toMatchObject({ outcome: "material" });
        const [out] = (await queryTimeline(t.db, { trackerId })).items;
        expect(out?.delta).toMatchObject({ availability: { from: "InStock", to: "OutOfStock" } });
      }
    },
    60_000,
  );

  it("the control: a field at the first detected price (/prices/0) raises a false material alert on the same insert", async () => {
    const page = CORPUS_PAGES.find((p) => p.id === "text-de") as TCorpusPage;
    const path = "/control/text-de";
    site.setPage(path, { body: page.render(page.base, volatileFor(0)) });
    const { tracker } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(path) },
      definition: {
        fields: [
          {
            name: "price",
            type: "money",
            currency: "EUR",
            description: "first price on the page",
            extractor: { kind: "json_pointer", pointer: "/prices/0/amount" },
          },
        ],
        identityRule: { kind: "canonical_url" },
        materiality: { price: { kind: "numeric", relative: 0.01 } },
      },
    });
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("baseline");
    site.setPage(path, { body: insertAboveProduct(page.render(page.base, volatileFor(1)), PROMO_AND_AD) });
    const promo = await refreshTracker(t.db, tracker.id, options());
    expect(promo.outcome).toBe("material");
    expect(await changeRows(tracker.id)).toBe(2);
  });
});
