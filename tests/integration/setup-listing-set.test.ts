import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getCapability } from "@/server/capabilities";
import { parseDefinition, type TTrackerDefinition } from "@/server/intelligence/definition";
import { refreshTracker } from "@/server/intelligence/refresh";
import { createSetupSession, getSetupState, setSetupReadMode } from "@/server/intelligence/setup";
import { getTracker } from "@/server/intelligence/tracker-store";
import { listSetMembers } from "@/server/trackers";
import { ARTICLE_PAGES, volatileFor } from "../fixtures/corpus/pages";
import { PLAN_PAGES, type TPlanPage } from "../fixtures/corpus/pages/plans";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * Rules mode (no model) on a listing page whose decision is about a set (docs/sets.md): the sample's HTML is asked
 * for a listing in the page worker, the plan goes into the tracker's web.scrape input as `listing`, the sample is read
 * again as a set, and the draft watches its members — one field per plan field, new and removed members material, a
 * 10 % drop on the main price when the decision is about prices. A named plan keeps its single-page draft; a set
 * decision on a page without a list says it watches it as one page.
 */

let t: TTestDb;
let site: TFixtureSite;
let userId: string;
const config = () => localCapabilityConfig([site.url], { timeoutMs: 5000 });
const listing = (name: string) => fs.readFileSync(`tests/fixtures/listings/${name}`, "utf8");
const ADD_OR_DROP = "did the rival drop or add any products?";
const NO_LISTING = "I could not find a repeated list of items on this page, so I watch it as one page.";

beforeAll(async () => {
  ({ t, site, userId } = await openSiteWorld());
  for (const shape of ["jsonld-itemlist", "microdata", "dom-cards", "table"])
    site.setPage(`/shop/${shape}`, { body: listing(`${shape}/base.html`) });
  site.setPage("/careers", { body: listing("job-board.html") });
  const article = ARTICLE_PAGES.find((a) => a.id === "article-news-en");
  site.setPage("/news/kettle", { body: article?.render(article.body) ?? "" });
  const plans = PLAN_PAGES.find((p) => p.id === "cards-price-class") as TPlanPage;
  site.setPage(plans.path, { body: plans.render(plans.prices, volatileFor(0)) });
});
afterAll(() => closeSiteWorld(t, site));

/** One rules-mode setup turn on a fresh session; the session's state, its tracker and what the reply said. */
async function setUp(text: string) {
  const session = await createSetupSession(t.db, { userId });
  const turn = await setupTurn(t.db, { userId, sessionId: session.id, text, config: config(), model: null });
  const state = await getSetupState(t.db, { userId, sessionId: session.id });
  if (!state.tracker) throw new Error(`no tracker was bound: ${turn.replies.map((r) => r.text).join(" ")}`);
  const tracker = await getTracker(t.db, { userId, trackerId: state.tracker.id });
  const definition = state.draft?.definition;
  if (!definition) throw new Error("no draft was saved");
  const sample = state.sample as { capability: string; input: Record<string, unknown>; results: unknown };
  const said = turn.replies.map((r) => r.text).join(" ");
  return { state, tracker, definition, sample, said };
}

/** The members the sample's read-back lists, as a refresh reads them. */
function membersOf(sample: { capability: string; input: unknown; results: unknown }) {
  const web = getCapability(sample.capability);
  if (!web) throw new Error(`${sample.capability} is not registered`);
  return web.readBack(sample.input, sample.results).items ?? [];
}

const fieldsOf = (definition: TTrackerDefinition) =>
  definition.fields.map((f) => [f.name, f.type, f.currency ?? null, f.extractor]);
const ptr = (pointer: string) => ({ kind: "json_pointer", pointer });
const SET_POLICY = { missingAfter: 2, maxEntities: 200, rules: [{ kind: "appeared" }, { kind: "disappeared" }] };

describe("rules mode drafts a listing page as a set when the decision is about a set", () => {
  it("a JSON-LD ItemList: the plan is the tracker's input, the sample lists the 8 products, the draft is a set", async () => {
    const url = site.urlFor("/shop/jsonld-itemlist");
    const { tracker, definition, sample, said, state } = await setUp(`${ADD_OR_DROP} ${url}`);

    // The locked tracker's refreshes read the set: the plan is in its stored web.scrape input.
    const input = tracker.capabilityInput as { url: string; listing?: { shape: string; key: { kind: string } } };
    expect(tracker.capability).toBe("web.scrape");
    expect(input.url).toBe(url);
    expect(input.listing).toMatchObject({ shape: "jsonld-itemlist", key: { kind: "url" }, maxPages: 1 });
    expect(sample.input).toEqual(tracker.capabilityInput);
    expect((state.sample as { listing?: unknown }).listing).toEqual({ watched: true });

    const members = membersOf(sample);
    expect(members).toHaveLength(8);
    expect(members[0]).toEqual({
      key: "https://shop.example/machines/gaggia-classic-pro",
      values: {
        name: "Gaggia Classic Pro",
        price: "449 USD",
        url: "https://shop.example/machines/gaggia-classic-pro",
        sku: "GCP-2026",
        availability: "InStock",
      },
    });

    expect(fieldsOf(definition)).toEqual([
      ["name", "string", null, ptr("/name")],
      ["price", "money", "USD", ptr("/price")],
      ["url", "string", null, ptr("/url")],
      ["sku", "string", null, ptr("/sku")],
      ["availability", "string", null, ptr("/availability")],
    ]);
    expect(definition.materiality).toEqual({
      name: { kind: "ask_agent" },
      price: { kind: "numeric", relative: 0.01 },
      url: { kind: "ignore" },
      sku: { kind: "ask_agent" },
      availability: { kind: "any_change" },
    });
    expect(definition.identityRule).toEqual({ kind: "canonical_url" });
    expect(definition.set).toEqual(SET_POLICY);
    const parsed = parseDefinition(definition);
    expect(parsed.ok).toBe(true);
    expect(parsed.ok && parsed.definition.set).toEqual(SET_POLICY);

    expect(said).toContain("drafted 5 fields");
    expect(said).toContain(
      "I watch the 8 products on this page as a set (identified by their URL), each with its name, price, url, sku and availability: new and removed products are material (one counts as removed after 2 reads without it); a changed availability or a move of 1 % or more in its price is material too; an edited product (its name or sku) is notable — AI is off, so an edit is recorded, not judged. A change to its url alone is noise.",
    );
    expect(said).not.toContain(NO_LISTING);
  });

  it.each([
    {
      shape: "microdata",
      count: 6,
      key: "url",
      first: "/grinders/niche-zero",
      fields: [
        ["name", "string", null, ptr("/name")],
        ["price", "money", "USD", ptr("/price")],
        ["url", "string", null, ptr("/url")],
        ["sku", "string", null, ptr("/sku")],
        ["availability", "string", null, ptr("/availability")],
      ],
      identity: "their URL",
    },
    {
      shape: "dom-cards",
      count: 7,
      key: "url",
      first: "/beans/ethiopia-guji-natural",
      fields: [
        ["name", "string", null, ptr("/name")],
        ["price", "money", "EUR", ptr("/price")],
        ["url", "string", null, ptr("/url")],
        ["notes", "string", null, ptr("/notes")],
      ],
      identity: "their URL",
    },
    {
      shape: "table",
      count: 6,
      key: "sku",
      first: "GSK-58",
      fields: [
        ["name", "string", null, ptr("/name")],
        ["sku", "string", null, ptr("/sku")],
        ["variant", "string", null, ptr("/variant")],
        ["price", "money", "EUR", ptr("/price")],
        ["in_stock", "number", null, ptr("/in_stock")],
      ],
      identity: "their SKU",
    },
  ])("$shape: $count products, identified by $identity", async ({ shape, count, key, first, fields, identity }) => {
    const { tracker, definition, sample, said } = await setUp(`${ADD_OR_DROP} ${site.urlFor(`/shop/${shape}`)}`);
    expect(tracker.capabilityInput).toMatchObject({ listing: { shape, key: { kind: key } } });
    const members = membersOf(sample);
    expect(members).toHaveLength(count);
    expect(members[0]?.key).toBe(first.startsWith("/") ? site.urlFor(first) : first);
    expect(fieldsOf(definition)).toEqual(fields);
    expect(definition.set).toEqual(SET_POLICY);
    expect(parseDefinition(definition).ok).toBe(true);
    expect(said).toContain(
      `I watch the ${count} products on this page as a set (identified by ${identity}), each with`,
    );
  });

  it("a decision about prices adds a 10 % drop rule on the main price and says so", async () => {
    const { definition, said } = await setUp(
      `Which of the rival's products got cheaper? ${site.urlFor("/shop/dom-cards")}`,
    );
    expect(definition.set).toEqual({
      missingAfter: 2,
      maxEntities: 200,
      rules: [{ kind: "appeared" }, { kind: "disappeared" }, { kind: "any_item_drop", field: "price", minPercent: 10 }],
    });
    expect(definition.materiality.price).toEqual({ kind: "numeric", relative: 0.01 });
    expect(parseDefinition(definition).ok).toBe(true);
    expect(said).toContain("I watch the 7 products on this page as a set (identified by their URL)");
    expect(said).toContain(
      "A drop of 10 % or more in any product's price is material too, and named in the set's summary.",
    );
  });

  it("once locked, its refreshes read the set: a baseline of 7, then a new product and one missing", async () => {
    const path = "/shop/beans";
    site.setPage(path, { body: listing("dom-cards/base.html") });
    const { state, tracker } = await setUp(`${ADD_OR_DROP} ${site.urlFor(path)}`);
    const lock = await setupTurn(t.db, {
      userId,
      sessionId: state.sessionId,
      text: "looks good",
      config: config(),
      model: null,
    });
    expect(lock.last?.text).toBe("Locked version 1. The tracker is active.");
    const refresh = () =>
      refreshTracker(t.db, tracker.id, {
        trigger: "manual",
        models: { filler: null, judge: null },
        capabilityConfig: config(),
      });
    expect((await refresh()).outcome).toBe("baseline");
    const members = () => listSetMembers(t.db, { userId, trackerId: tracker.id, sort: "name", status: "all" });
    expect((await members()).counts).toEqual({ all: 7, listed: 7, missing: 0, gone: 0 });
    site.setPage(path, { body: listing("dom-cards/changed.html") });
    expect((await refresh()).outcome).toBe("material");
    const after = await members();
    expect(after.counts).toEqual({ all: 8, listed: 7, missing: 1, gone: 0 });
    expect(after.members.find((m) => m.isNew)?.name).toBe("Rwanda Nyamasheke");
    expect(after.members.find((m) => m.missingRuns === 1)?.name).toBe("Kenya Nyeri AA");
  });

  it("switching the read mode keeps the listing: read again as a set and redrafted as one", async () => {
    const { state } = await setUp(`${ADD_OR_DROP} ${site.urlFor("/shop/microdata")}`);
    const switched = await setSetupReadMode(t.db, {
      userId,
      sessionId: state.sessionId,
      render: "never",
      config: config(),
    });
    const tracker = await getTracker(t.db, { userId, trackerId: state.tracker?.id ?? "" });
    expect(tracker.capabilityInput).toMatchObject({ render: "never", listing: { shape: "microdata" } });
    expect(switched.draft?.definition.set).toEqual(SET_POLICY);
    expect(switched.said.join(" ")).toContain("I watch the 6 products on this page as a set (identified by their URL)");
  });

  it("names members by the decision's own word: a job board's postings", async () => {
    const { definition, said, tracker } = await setUp(`any new job postings? ${site.urlFor("/careers")}`);
    expect(tracker.capabilityInput).toMatchObject({ listing: { shape: "dom-cards" } });
    expect(definition.fields.map((f) => f.name)).toEqual(["name", "url", "location", "type"]);
    expect(definition.set?.rules).toEqual([{ kind: "appeared" }, { kind: "disappeared" }]);
    expect(said).toContain(
      "I watch the 6 postings on this page as a set (identified by their URL), each with its name, url, location and type: new and removed postings are material",
    );
  });
});

describe("rules mode keeps a single-page draft", () => {
  it("for a named plan on a pricing page (the decision is not about a set)", async () => {
    const plans = PLAN_PAGES.find((p) => p.id === "cards-price-class") as TPlanPage;
    const { definition, tracker, said, state } = await setUp(
      `Is Acme undercutting us on the Pro plan? ${site.urlFor(plans.path)}`,
    );
    expect(definition.set).toBeUndefined();
    expect(tracker.capabilityInput).not.toHaveProperty("listing");
    expect((state.sample as { listing?: unknown }).listing).toBeUndefined();
    // The Pro plan's price is the main field, as before.
    expect(definition.fields[0]?.type).toBe("money");
    expect(definition.fields[0]?.currency).toBe("USD");
    expect(said).toContain("watching Pro ($49");
    expect(said).not.toContain(NO_LISTING);
    expect(said).not.toContain("as a set");
  });

  it("for a set decision on an article, and says it watches it as one page", async () => {
    const { definition, tracker, said, state } = await setUp(`${ADD_OR_DROP} ${site.urlFor("/news/kettle")}`);
    expect(definition.set).toBeUndefined();
    expect(tracker.capabilityInput).not.toHaveProperty("listing");
    expect((state.sample as { listing?: unknown }).listing).toEqual({ watched: false, why: NO_LISTING });
    // The article's own single-page draft: its paragraphs as a field the agent judges.
    expect(definition.fields[0]).toMatchObject({ name: "main_text", type: "string_list" });
    expect(said).toContain("This page reads like an article");
    expect(said).toContain(NO_LISTING);
    expect(said).not.toContain("as a set");
  });
});
