import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatStructuredDocument } from "@/server/capabilities";
import type { TField, TTrackerDefinition } from "@/server/intelligence/definition";
import { applyExtractors } from "@/server/intelligence/fill";
import {
  choosePriceCandidate,
  createSetupSession,
  getSetupState,
  listPriceCandidates,
} from "@/server/intelligence/setup";
import { volatileFor } from "../fixtures/corpus/pages";
import { PLAN_PAGES, type TPlanPage, type TPlanPrices } from "../fixtures/corpus/pages/plans";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * Rules-mode chat rebinding by label: with AI off, "use the annual price", "the Business plan" and
 * "watch the Duo price instead" point the card's main price field at the price those words name on the
 * page (from the candidates kept with the sample); the reply says what it watches and what it reads on
 * the sample, and the field then reads that price — and only that one — when the page changes.
 */

let t: TTestDb;
let site: TFixtureSite;
let userId: string;

const pageOf = (id: string) => PLAN_PAGES.find((p) => p.id === id) as TPlanPage;

beforeAll(async () => {
  ({ t, site, userId } = await openSiteWorld());
  for (const id of ["table-plans-as-rows", "names-in-buttons"]) {
    const p = pageOf(id);
    site.setPage(p.path, { body: p.render(p.prices, volatileFor(0)) });
  }
});
afterAll(() => closeSiteWorld(t, site));

const turn = (sessionId: string, text: string) =>
  setupTurn(t.db, { userId, sessionId, text, config: localCapabilityConfig([site.url]), model: null });

async function mainPrice(sessionId: string): Promise<{ definition: TTrackerDefinition; field: TField }> {
  const state = await getSetupState(t.db, { userId, sessionId });
  const definition = state.draft?.definition as TTrackerDefinition;
  const field = definition.fields.find((f) => f.type === "money" || f.type === "number") as TField;
  return { definition, field };
}

async function reads(definition: TTrackerDefinition, field: TField, page: TPlanPage, prices: TPlanPrices) {
  const html = page.render(prices, volatileFor(5));
  const document = formatStructuredDocument(html, site.urlFor(page.path), { requestedUrl: site.urlFor(page.path) });
  const { values } = await applyExtractors(definition, { json: document, html, text: document.mainText });
  const v = values[field.name];
  return v && typeof v === "object" && "amount" in v ? v.amount : v;
}

describe("rebinding the price by label in rules mode", () => {
  it("moves the main price field to the price the words name, says what it reads on the sample, and follows only it", async () => {
    const page = pageOf("table-plans-as-rows");
    const session = await createSetupSession(t.db, { userId });
    const first = await turn(session.id, `Is Acme undercutting us on the Scale plan? ${site.urlFor(page.path)}`);
    expect(first.last?.text).toMatch(/6 prices on the page: .*watching Scale · Monthly \(\$120/);
    let { definition, field } = await mainPrice(session.id);
    expect(await reads(definition, field, page, page.prices)).toBe(120);

    // Only a period: the plan watched now (Scale) decides between the annual prices.
    const annual = await turn(session.id, "use the annual price");
    expect(annual.last?.text).toMatch(
      /Now scale_annual_price watches Scale · Annual: .* it reads \$1200 on the sample/,
    );
    ({ definition, field } = await mainPrice(session.id));
    expect(definition.fields.filter((f) => f.type === "money")).toHaveLength(1);
    expect(await reads(definition, field, page, page.prices)).toBe(1200);

    // Another plan: the period watched now (annual) is kept.
    const business = await turn(session.id, "the Business plan");
    expect(business.last?.text).toMatch(
      /Now business_annual_price watches Business · Annual: .* reads \$450 on the sample/,
    );
    ({ definition, field } = await mainPrice(session.id));
    expect(await reads(definition, field, page, page.prices)).toBe(450);
    expect(await reads(definition, field, page, { ...page.prices, "Business annual": 399 })).toBe(399);
    expect(await reads(definition, field, page, { ...page.prices, "Scale annual": 999, "Business monthly": 40 })).toBe(
      450,
    );
    // The rule moved with the field.
    expect(definition.materiality[field.name]).toEqual({ kind: "numeric", relative: 0.01 });
  });

  it("rebinds on a page whose plan names are only in its buttons", async () => {
    const page = pageOf("names-in-buttons");
    const session = await createSetupSession(t.db, { userId });
    await turn(session.id, `Is the Family plan price going up? ${site.urlFor(page.path)}`);
    const duo = await turn(session.id, "watch the Duo price instead");
    expect(duo.last?.text).toMatch(/Now duo_price watches Duo: .*reads \$20 on the sample \(you named “Duo”\)/);
    const { definition, field } = await mainPrice(session.id);
    expect(await reads(definition, field, page, { ...page.prices, Duo: 18 })).toBe(18);
    expect(await reads(definition, field, page, { ...page.prices, Solo: 9, Family: 25 })).toBe(20);
  });

  it("answers words that name no price on the page with what rules mode understands", async () => {
    const page = pageOf("names-in-buttons");
    const session = await createSetupSession(t.db, { userId });
    await turn(session.id, `Is the Family plan price going up? ${site.urlFor(page.path)}`);
    const before = await mainPrice(session.id);
    const other = await turn(session.id, "watch the Enterprise plan instead");
    expect(other.last?.text).toMatch(/AI is off/);
    expect((await mainPrice(session.id)).field).toEqual(before.field);
  });
});

describe("pointing at the price on the card", () => {
  it("lists the sample's prices with the watched one marked; choosing another binds it, anchored and checked", async () => {
    const page = pageOf("cards-price-class");
    site.setPage(page.path, { body: page.render(page.prices, volatileFor(0)) });
    const session = await createSetupSession(t.db, { userId });
    await turn(session.id, `Is Acme undercutting us on the Starter plan? ${site.urlFor(page.path)}`);
    const listed = await listPriceCandidates(t.db, { userId, sessionId: session.id });
    expect(listed.map((c) => [c.label, c.text, c.watched])).toEqual([
      ["Starter", expect.stringContaining("19"), true],
      ["Pro", expect.stringContaining("49"), false],
      ["Team", expect.stringContaining("99"), false],
    ]);
    const pro = listed.find((c) => c.label === "Pro");
    const chosen = await choosePriceCandidate(t.db, { userId, sessionId: session.id, index: pro?.index ?? -1 });
    expect(chosen.said[0]).toMatch(/^Now pro_price watches Pro: .*it reads \$49.* on the sample\.$/);
    expect(chosen.candidates.filter((c) => c.watched).map((c) => c.label)).toEqual(["Pro"]);
    expect(chosen.draft.view.fields[0]?.name).toBe("pro_price");

    const { definition, field } = await mainPrice(session.id);
    expect(await reads(definition, field, page, { ...page.prices, Pro: 44 })).toBe(44);
    expect(await reads(definition, field, page, { ...page.prices, Starter: 15, Team: 90 })).toBe(49);
    expect((await listPriceCandidates(t.db, { userId, sessionId: session.id })).find((c) => c.watched)?.label).toBe(
      "Pro",
    );
    // Not another person's session, and not a price the sample does not have.
    const stranger = (await t.db.user.create({ data: { name: "S", email: "s@example.test" } })).id;
    await expect(listPriceCandidates(t.db, { userId: stranger, sessionId: session.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(choosePriceCandidate(t.db, { userId, sessionId: session.id, index: 99 })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});
