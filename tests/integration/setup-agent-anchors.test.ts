import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TLanguageModel } from "@/server/ai";
import { closePageWorkers } from "@/server/capabilities";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { createSetupSession, getSetupState } from "@/server/intelligence/setup";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { setupRecordings } from "../e2e/setup-recordings";
import {
  CORPUS_PAGES,
  insertAboveProduct,
  PROMO_AND_AD,
  type TCorpusPage,
  volatileFor,
} from "../fixtures/corpus/pages";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { dataPart, setupTurn } from "../helpers/setup-turn";
import { fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/**
 * The drafting agent and anchors (docs/intelligence.md, "Drafts anchored by meaning, not position"), with the real @ai-sdk/openai client on the fixture model
 * server: the sample the model reads leads with the page reading (the product's offers and their
 * pointers, the own price's anchor, the skipped old/promotional prices, availability) and the
 * instructions say to prefer offers, then label/CSS anchors, never /prices/N. A recorded answer anchored
 * to the offers passes validation and holds in the hot loop; a positional one is refused, with the
 * anchors to use, and repaired.
 */

let t: TTestDb;
let site: TFixtureSite;
let server: TModelServer;
let model: TLanguageModel;
let userId: string;

const page = (id: string) => CORPUS_PAGES.find((p) => p.id === id) as TCorpusPage;
const GRINDER = page("microdata-meta-content");
const SALE = page("sale-del-ins");

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  server = await startModelServer();
  model = fixtureModel(server.url) as TLanguageModel;
  userId = (await ensureLocalUser(t.db)).id;
});
beforeEach(() => {
  server.setRecordings(setupRecordings(site.url));
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await closePageWorkers();
  await t?.close();
});

const turn = (sessionId: string, text: string) =>
  setupTurn(t.db, { userId, sessionId, text, config: localCapabilityConfig([site.url]), model });
const refreshOptions = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url]),
});

type TField = Record<string, unknown>;
const definition = (fields: TField[], materiality: Record<string, unknown>) => ({
  definition: { fields, identityRule: { kind: "canonical_url" }, materiality },
});
const AVAILABILITY_FIELD = {
  name: "availability",
  type: "enum",
  enumValues: ["InStock", "OutOfStock", "PreOrder", "BackOrder", "SoldOut", "LimitedAvailability"],
  description: "Whether the grinder can be bought",
  extractor: { kind: "json_pointer", pointer: "/availability/value" },
};

/** bind → fetch → propose (`first`) → repair on "Fix these" (`repair`) → summary. */
function record(user: string, url: string, first: Record<string, unknown>, repair?: Record<string, unknown>) {
  const name = user.replace(/\W+/g, "-").toLowerCase();
  server.addRecording({
    name: `${name}-5-summary`,
    match: { user, prompt: '"saved":"draft' },
    response: { text: "Draft: the grinder's price from its offer, and its stock. Does it look good?" },
  });
  if (repair) {
    server.addRecording({
      name: `${name}-4-repair`,
      match: { user, prompt: "Fix these" },
      response: { toolCalls: [{ id: "c4", name: "proposeDefinition", arguments: repair }] },
    });
  }
  server.addRecording({
    name: `${name}-3-propose`,
    match: { user, prompt: '"sample":"' },
    response: { toolCalls: [{ id: "c3", name: "proposeDefinition", arguments: first }] },
  });
  server.addRecording({
    name: `${name}-2-fetch`,
    match: { user, prompt: "call fetchSample" },
    response: { toolCalls: [{ id: "c2", name: "fetchSample", arguments: {} }] },
  });
  server.addRecording({
    name: `${name}-1-bind`,
    match: { user, afterToolResult: false },
    response: { toolCalls: [{ id: "c1", name: "bindCapability", arguments: { capability: "web.scrape", url } }] },
  });
}

/** What the model received in the request a recording answered (system prompt and messages), JSON escapes removed. */
const received = (matched: string) => {
  const request = server.requests.find((r) => r.matched === matched);
  expect(request, `no request answered by ${matched}`).toBeDefined();
  return JSON.stringify(request?.body).replaceAll("\\", "");
};

describe("the drafting agent anchors by meaning", () => {
  it("reads the offers first and is told to prefer them; an answer anchored to /offers/0/price is saved and holds when a promotion and an ad appear", async () => {
    site.setPage(GRINDER.path, { body: GRINDER.render(GRINDER.base, volatileFor(0)) });
    const user = "Watch the grinder";
    record(
      user,
      site.urlFor(GRINDER.path),
      definition(
        [
          {
            name: "grinder_price",
            type: "money",
            currency: "AUD",
            description: "The grinder's price (its structured offer)",
            extractor: { kind: "json_pointer", pointer: "/offers/0/price" },
          },
          AVAILABILITY_FIELD,
        ],
        { grinder_price: { kind: "numeric", relative: 0.01 }, availability: { kind: "any_change" } },
      ),
    );
    const session = await createSetupSession(t.db, { userId });
    const first = await turn(
      session.id,
      `${user} — tell me when its price or stock changes ${site.urlFor(GRINDER.path)}`,
    );
    expect(dataPart(first.reply, "draft")).toMatchObject({ status: "saved", version: 1 });

    // The instructions: offers first, then label/CSS anchors, never /prices/N; skip old and promotional prices; availability.
    const proposeRequest = received("watch-the-grinder-3-propose");
    expect(proposeRequest).toContain("Prefer, in this order: the structured offers");
    expect(proposeRequest).toContain("Never point at /prices/N");
    expect(proposeRequest).toMatch(/Skip old prices .*UVP.*statt/);
    expect(proposeRequest).toContain("add an availability field");
    // The sample: the reading leads, naming the offer pointer; the offers come before the long main text.
    const sample = proposeRequest.slice(proposeRequest.indexOf("sample"));
    expect(sample).toMatch(/reading.*ownPrice.*349.*AUD.*\/offers\/0\/price/);
    expect(sample).toMatch(/availability.*InStock.*\/availability\/value/);
    expect(sample.indexOf("offers")).toBeLessThan(sample.indexOf("mainText"));

    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.draft?.definition.fields.map((f) => f.name)).toEqual(["grinder_price", "availability"]);
    expect(dataPart((await turn(session.id, "looks good")).reply, "locked")).toMatchObject({ version: 1 });

    const trackerId = state.tracker?.id ?? "";
    expect((await refreshTracker(t.db, trackerId, refreshOptions())).outcome).toBe("baseline");
    site.setPage(GRINDER.path, {
      body: insertAboveProduct(GRINDER.render(GRINDER.base, volatileFor(1)), PROMO_AND_AD),
    });
    expect(await refreshTracker(t.db, trackerId, refreshOptions())).toMatchObject({
      outcome: "noise",
      summary: "no tracked field changed",
    });
    expect(await t.db.entityChange.count({ where: { trackerId } })).toBe(1);
    site.setPage(GRINDER.path, {
      body: insertAboveProduct(GRINDER.render(GRINDER.priceChange, volatileFor(2)), PROMO_AND_AD),
    });
    expect(await refreshTracker(t.db, trackerId, refreshOptions())).toMatchObject({ outcome: "material" });
    expect(await t.db.entityChange.count({ where: { trackerId } })).toBe(2);
  });

  it("refuses a field at /prices/N when the page has better anchors, names them, and saves the repair", async () => {
    site.setPage(SALE.path, { body: SALE.render(SALE.base, volatileFor(0)) });
    const user = "Watch the sale shoe";
    const price = (extractor: unknown) => ({
      name: "shoe_price",
      type: "money",
      currency: "USD",
      description: "The shoe's price",
      extractor,
    });
    const rules = { shoe_price: { kind: "numeric", relative: 0.01 } };
    record(
      user,
      site.urlFor(SALE.path),
      definition([price({ kind: "json_pointer", pointer: "/prices/1/amount" })], rules),
      definition([price({ kind: "css", selector: ".price ins" }), AVAILABILITY_FIELD], {
        ...rules,
        availability: { kind: "any_change" },
      }),
    );
    const session = await createSetupSession(t.db, { userId });
    const r = await turn(session.id, `${user} ${site.urlFor(SALE.path)}`);

    // The sample told the model which price is old and what reads the own one.
    const sample = received("watch-the-sale-shoe-3-propose");
    expect(sample).toMatch(/skipped.*199\.99.*struck through/);
    expect(sample).toMatch(/ownPrice.*129\.99.*\.price ins/);
    // The refusal went back to the model with the anchors to use instead.
    const repairRequest = received("watch-the-sale-shoe-4-repair");
    expect(repairRequest).toContain(
      'field "shoe_price" reads /prices/1/amount, the 2nd price detected in the page text',
    );
    expect(repairRequest).toContain("Anchor it by meaning instead");
    expect(repairRequest).toContain("CSS .price ins");
    expect(dataPart(r.reply, "draft")).toMatchObject({ status: "saved", version: 1 });
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.draft?.definition.fields[0]?.extractor).toEqual({ kind: "css", selector: ".price ins" });
  });

  it("advises an availability field when the page states stock and the draft has none (saved, not refused)", async () => {
    const path = "/agent/advice";
    site.setPage(path, { body: GRINDER.render(GRINDER.base, volatileFor(0)) });
    const user = "Watch the advice grinder";
    record(
      user,
      site.urlFor(path),
      definition(
        [
          {
            name: "grinder_price",
            type: "money",
            currency: "AUD",
            description: "The grinder's price",
            extractor: { kind: "json_pointer", pointer: "/offers/0/price" },
          },
        ],
        { grinder_price: { kind: "numeric", relative: 0.01 } },
      ),
    );
    const session = await createSetupSession(t.db, { userId });
    const r = await turn(session.id, `${user} ${site.urlFor(path)}`);
    expect(dataPart(r.reply, "draft")).toMatchObject({ status: "saved" });
    expect(received("watch-the-advice-grinder-5-summary")).toContain(
      "The page states availability (InStock) at /availability/value",
    );
  });
});
