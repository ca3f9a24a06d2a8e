import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatStructuredDocument } from "@/server/capabilities";
import type { TTrackerDefinition } from "@/server/intelligence/definition";
import { applyExtractors } from "@/server/intelligence/fill";
import {
  createSetupSession,
  getPageView,
  getSetupState,
  pointAtElement,
  rereadSetupPage,
} from "@/server/intelligence/setup";
import { volatileFor } from "../fixtures/corpus/pages";
import { PLAN_PAGES, type TPlanPage, type TPlanPrices } from "../fixtures/corpus/pages/plans";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { elementShowing } from "../helpers/page-view";
import { setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * The page view (docs/page-view.md): the sample page kept inert with its elements numbered; each draft field
 * outlined where it reads; the prices passed over marked; pointing at an element binds it to a field (an
 * existing one or a new one) through an anchor that is not a position, checked to read it — and the field then
 * reads that element on the live page, also when the page around it changes.
 */

let t: TTestDb;
let site: TFixtureSite;
let userId: string;
const pageOf = (id: string) => PLAN_PAGES.find((p) => p.id === id) as TPlanPage;
const config = () => localCapabilityConfig([site.url]);

beforeAll(async () => ({ t, site, userId } = await openSiteWorld()));
afterAll(() => closeSiteWorld(t, site));

async function startSetup(page: TPlanPage, decision: string) {
  site.setPage(page.path, { body: page.render(page.prices, volatileFor(0)) });
  const session = await createSetupSession(t.db, { userId });
  await setupTurn(t.db, {
    userId,
    sessionId: session.id,
    text: `${decision} ${site.urlFor(page.path)}`,
    config: config(),
    model: null,
  });
  return session.id;
}

const view = (sessionId: string, which: "current" | "earlier" = "current") =>
  getPageView(t.db, { userId, sessionId, which, config: config() });

async function liveValue(definition: TTrackerDefinition, name: string, page: TPlanPage, html: string) {
  const document = formatStructuredDocument(html, site.urlFor(page.path), { requestedUrl: site.urlFor(page.path) });
  const { values } = await applyExtractors(definition, { json: document, html, text: document.mainText });
  const v = values[name];
  return v && typeof v === "object" && "amount" in v ? v.amount : v;
}

describe("the page view", () => {
  it("keeps the sample inert, outlines what the draft reads and marks the prices it passed over", async () => {
    const page = pageOf("cards-price-class");
    const sessionId = await startSetup(page, "Is Acme undercutting us on the Pro plan?");
    const v = await view(sessionId);
    expect(v).not.toBeNull();
    if (!v) return;
    // Inert: the fixture page's scripts and nonces are gone, every element numbered.
    expect(v.html).not.toMatch(/<script|nonce=|onclick=/i);
    expect(v.html).toMatch(/data-bw-n="\d+"/);
    const price = v.fields.find((f) => f.type === "money");
    expect(price?.reads).toMatch(/^49\b/);
    expect(price?.where).toMatch(/Pro/);
    const pro = elementShowing(v.html, "$49");
    expect(price?.elements).toEqual([pro]);
    // The other plans' prices are marked as passed over, each on its own element.
    const others = v.candidates.filter((c) => !c.watched);
    expect(others.map((c) => c.label).sort()).toEqual(["Starter", "Team"]);
    expect(others.flatMap((c) => c.elements).sort()).toEqual(
      [elementShowing(v.html, "$19"), elementShowing(v.html, "$99")].sort(),
    );
    expect(v.candidates.find((c) => c.watched)?.elements).toEqual([pro]);
  });

  it("pointing at another price rebinds the field by a named anchor, checked on the sample, and it follows that price live", async () => {
    const page = pageOf("names-in-buttons");
    const sessionId = await startSetup(page, "Is the Solo plan getting pricier?");
    const before = await view(sessionId);
    if (!before) throw new Error("no page view");
    const field = before.fields.find((f) => f.type === "money")?.name as string;
    const duo = elementShowing(before.html, "$20");
    const pointed = await pointAtElement(t.db, { userId, sessionId, element: duo, field, config: config() });
    expect(pointed.said.join(" ")).toMatch(
      new RegExp(
        `Now duo_price reads the price in the card with the button “Choose Duo”: “\\$20”.*It replaces ${field} and keeps its rule`,
      ),
    );
    const after = await view(sessionId);
    expect(after?.fields.find((f) => f.name === "duo_price")).toMatchObject({
      reads: expect.stringMatching(/^20\b/),
      elements: [duo],
    });
    expect(after?.fields.some((f) => f.name === field)).toBe(false);

    const definition = (await getSetupState(t.db, { userId, sessionId })).draft?.definition as TTrackerDefinition;
    const extractor = definition.fields.find((f) => f.name === "duo_price")?.extractor;
    expect(extractor).toEqual({ kind: "css", selector: ':has(> button:text-is("Choose Duo")) div.price' });
    expect(definition.materiality.duo_price).toBeDefined();
    const prices: TPlanPrices = { ...page.prices, Duo: 24 };
    expect(await liveValue(definition, "duo_price", page, page.render(prices, volatileFor(3)))).toBe(24);
  });

  it("pointing at an element makes a new field typed from its text; a value that does not fit a field is refused", async () => {
    const page = pageOf("table-plans-as-rows");
    const sessionId = await startSetup(page, "Is Acme undercutting us on the Basic plan?");
    const v = await view(sessionId);
    if (!v) throw new Error("no page view");
    const count = v.fields.length;
    const scaleAnnual = elementShowing(v.html, "$1200");
    const made = await pointAtElement(t.db, { userId, sessionId, element: scaleAnnual, field: null, config: config() });
    expect(made.said.join(" ")).toMatch(/reads the price in the row “Scale”, column “.+”: “\$1200”.*new money field/);
    const definition = (await getSetupState(t.db, { userId, sessionId })).draft?.definition as TTrackerDefinition;
    expect(definition.fields).toHaveLength(count + 1);
    const added = definition.fields[count];
    expect(added).toMatchObject({ type: "money", currency: "USD", extractor: { kind: "css" } });
    expect(definition.materiality[added?.name as string]).toEqual({ kind: "numeric", relative: 0.01 });
    expect(
      await liveValue(
        definition,
        added?.name as string,
        page,
        page.render({ ...page.prices, "Scale annual": 999 }, volatileFor(2)),
      ),
    ).toBe(999);

    // A plan's name is not a price.
    const money = definition.fields.find((f) => f.type === "money")?.name as string;
    const heading = elementShowing(v.html, "Plan");
    await expect(
      pointAtElement(t.db, { userId, sessionId, element: heading, field: money, config: config() }),
    ).rejects.toThrow(/does not read as/);
    await expect(
      pointAtElement(t.db, { userId, sessionId, element: 9_999_999, field: money, config: config() }),
    ).rejects.toThrow(/not on the page as it was read/);
    // Nothing was lost by the refusals.
    const still = (await getSetupState(t.db, { userId, sessionId })).draft?.definition as TTrackerDefinition;
    expect(still).toEqual(definition);
  });

  it("reading the page again keeps the page before: a field that stopped reading shows where it was, and pointing fixes it", async () => {
    const page = pageOf("cards-price-class");
    const sessionId = await startSetup(page, "Is Acme undercutting us on the Team plan?");
    const field = (await view(sessionId))?.fields.find((f) => f.type === "money")?.name as string;
    // Redesign: the plan names move out of headings, the price class is renamed.
    site.setPage(page.path, {
      body: `<!doctype html><html><body><main><h1>Pricing</h1>${["Starter", "Pro", "Team"]
        .map(
          (n) =>
            `<section class="tier"><b class="tier-name">${n}</b><div class="amount">$${page.prices[n]}/mo</div></section>`,
        )
        .join("")}</main></body></html>`,
    });
    const reread = await rereadSetupPage(t.db, { userId, sessionId, config: config() });
    expect(reread.said[0]).toMatch(/I read .* again/);
    const now = await view(sessionId);
    if (!now) throw new Error("no page view");
    // The re-read answers with the view it made, the same the page view's query reads (shown without a refetch).
    expect(reread.view).toEqual(now);
    expect(now.hasEarlier).toBe(true);
    expect(now.fields.find((f) => f.name === field)).toMatchObject({ reads: null, elements: [] });
    const earlier = await view(sessionId, "earlier");
    expect(earlier?.fields.find((f) => f.name === field)?.elements).toEqual([
      elementShowing(earlier?.html ?? "", "$99"),
    ]);

    const team = elementShowing(now.html, "$99");
    const fixed = await pointAtElement(t.db, { userId, sessionId, element: team, field, config: config() });
    expect(fixed.said[0]).toMatch(/the price in the part named “Team”: “\$99\/mo”/);
    expect((await view(sessionId))?.fields.find((f) => f.name === field)?.elements).toEqual([team]);
  });
});
