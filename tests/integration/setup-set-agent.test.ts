import fs from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TLanguageModel } from "@/server/ai";
import { refreshTracker } from "@/server/intelligence/refresh";
import { createSetupSession, getSetupState, lockSetup } from "@/server/intelligence/setup";
import { decisionWantsSet } from "@/server/intelligence/setup/decision-wants-set";
import { getTracker } from "@/server/intelligence/tracker-store";
import { listSetMembers } from "@/server/trackers";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/**
 * The drafting agent drafts a set (docs/sets.md, "Drafting a set"), with the real @ai-sdk/openai client on the fixture
 * model server: the agent's `watch` says whether the decision is about a set, so a listing is read as its members
 * even when the decision's words alone would not say so (and a single page stays one when the agent says "one"); the
 * sample it reads shows the members, their value paths and code's set draft; a definition whose shape does not match
 * the sample (no `set` part for a set, one for a single page, a field no member has) is refused with the reason, and
 * the repaired set locks and refreshes as a set.
 */

let t: TTestDb;
let site: TFixtureSite;
let server: TModelServer;
let model: TLanguageModel;
let userId: string;
const config = () => localCapabilityConfig([site.url], { timeoutMs: 5000 });
const listing = (name: string) => fs.readFileSync(`tests/fixtures/listings/${name}`, "utf8");

beforeAll(async () => {
  ({ t, site, userId } = await openSiteWorld());
  server = await startModelServer();
  model = fixtureModel(server.url) as TLanguageModel;
});
beforeEach(() => {
  server.reset();
  server.setRecordings([]);
});
afterAll(async () => {
  await server?.close();
  await closeSiteWorld(t, site);
});

const ptr = (pointer: string) => ({ kind: "json_pointer", pointer });
const SINGLE_PAGE = {
  fields: [{ name: "title", type: "string", description: "The page title", extractor: ptr("/title") }],
  identityRule: { kind: "canonical_url" },
  materiality: { title: { kind: "ask_agent" } },
};
const setDefinition = (pricePointer: string) => ({
  fields: [
    { name: "name", type: "string", description: "The machine's name", extractor: ptr("/name") },
    { name: "price", type: "money", currency: "USD", description: "Its price", extractor: ptr(pricePointer) },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { name: { kind: "ignore" }, price: { kind: "numeric", relative: 0.25 } },
  set: {
    missingAfter: 2,
    maxEntities: 200,
    rules: [{ kind: "appeared" }, { kind: "any_item_drop", field: "price", minPercent: 5 }],
  },
});

/** bind (with the agent's `watch`) → fetch → propose `first` → repair on "Fix these" → summary. */
function record(user: string, bind: Record<string, unknown>, first: unknown, repair?: unknown) {
  const name = user.replace(/\W+/g, "-").toLowerCase();
  server.addRecording({
    name: `${name}-5-summary`,
    match: { user, prompt: '"saved":"draft' },
    response: { text: "Draft: each machine's name and price, as a set. Does it look good?" },
  });
  if (repair)
    server.addRecording({
      name: `${name}-4-repair`,
      match: { user, prompt: "Fix these" },
      response: { toolCalls: [{ id: "c4", name: "proposeDefinition", arguments: { definition: repair } }] },
    });
  server.addRecording({
    name: `${name}-3-propose`,
    match: { user, prompt: '"sample":"' },
    response: { toolCalls: [{ id: "c3", name: "proposeDefinition", arguments: { definition: first } }] },
  });
  server.addRecording({
    name: `${name}-2-fetch`,
    match: { user, prompt: "call fetchSample" },
    response: { toolCalls: [{ id: "c2", name: "fetchSample", arguments: {} }] },
  });
  server.addRecording({
    name: `${name}-1-bind`,
    match: { user, afterToolResult: false },
    response: { toolCalls: [{ id: "c1", name: "bindCapability", arguments: { capability: "web.scrape", ...bind } }] },
  });
}

/** What the model received in the request a recording answered, JSON escapes removed. */
const received = (matched: string) => {
  const request = server.requests.find((r) => r.matched === matched);
  expect(request, `no request answered by ${matched}`).toBeDefined();
  return JSON.stringify(request?.body).replaceAll("\\", "");
};

/** The name of the recording of this conversation's step (the recordings are reset before each test). */
const matchedBy = (step: string) => server.requests.find((r) => r.matched?.endsWith(step))?.matched ?? step;

async function converse(user: string) {
  const session = await createSetupSession(t.db, { userId });
  const turn = await setupTurn(t.db, { userId, sessionId: session.id, text: user, config: config(), model });
  const state = await getSetupState(t.db, { userId, sessionId: session.id });
  return { session, turn, state };
}

describe("the drafting agent drafts a set", () => {
  it("watch: set reads a listing the decision's words alone would not; a draft without `set` is refused and repaired; the set locks and refreshes", async () => {
    const path = "/agent/machines";
    site.setPage(path, { body: listing("jsonld-itemlist/base.html") });
    const url = site.urlFor(path);
    const user = `Is the rival undercutting us? ${url}`;
    // The words alone keep one page (decision-wants-set.ts): the agent's judgement is what makes it a set.
    expect(decisionWantsSet(user)).toBe(false);
    record(user, { url, watch: "set" }, SINGLE_PAGE, setDefinition("/price"));

    const { session, state } = await converse(user);

    // The sample the agent drafted from: the members, their value paths and code's set draft — not the page's text.
    const sample = received(matchedBy("-3-propose"));
    expect(sample).toContain('"members":8');
    expect(sample).toContain('"valuePaths":["/name","/price","/url","/sku","/availability"]');
    expect(sample).toContain('"codeDraft":');
    expect(sample).toContain("Gaggia Classic Pro");
    // The single-page draft went back with the reason; the repair was saved.
    const repair = received(matchedBy("-4-repair"));
    expect(repair).toContain("The sample is a set of 8 members: the definition needs its `set` part");
    const definition = state.draft?.definition;
    expect(definition?.set?.rules).toEqual([
      { kind: "appeared" },
      { kind: "any_item_drop", field: "price", minPercent: 5 },
    ]);
    expect(definition?.fields.map((f) => f.name)).toEqual(["name", "price"]);

    // The tracker reads the listing with its plan: refreshes compare the same members.
    const trackerId = state.tracker?.id ?? "";
    const tracker = await getTracker(t.db, { userId, trackerId });
    expect(tracker.capabilityInput).toMatchObject({ url, listing: { shape: "jsonld-itemlist" } });
    await lockSetup(t.db, { userId, sessionId: session.id });
    const refresh = () =>
      refreshTracker(t.db, trackerId, {
        trigger: "manual",
        models: { filler: null, judge: null },
        capabilityConfig: config(),
      });
    expect((await refresh()).outcome).toBe("baseline");
    const members = await listSetMembers(t.db, { userId, trackerId, sort: "name", status: "all" });
    expect(members.counts).toEqual({ all: 8, listed: 8, missing: 0, gone: 0 });
    // The agent's own rule decides: two machines swapped for new ones appear, which is material.
    site.setPage(path, { body: listing("jsonld-itemlist/changed.html") });
    expect((await refresh()).outcome).toBe("material");
  });

  it("a set's field must read a value the members have, by JSON pointer", async () => {
    const path = "/agent/machines-2";
    site.setPage(path, { body: listing("jsonld-itemlist/base.html") });
    const url = site.urlFor(path);
    const user = `did the rival drop or add any products? ${url}`;
    record(user, { url }, setDefinition("/offers/0/price"), setDefinition("/price"));

    const { state } = await converse(user);

    const repair = received(matchedBy("-4-repair"));
    expect(repair).toContain(
      'field "price" reads /offers/0/price, which no member has; the members have /name, /price, /url, /sku, /availability.',
    );
    expect(state.draft?.definition.fields.find((f) => f.name === "price")?.extractor).toEqual(ptr("/price"));
  });

  it("watch: one keeps a set-worded decision on one page; a `set` part is then refused", async () => {
    const path = "/agent/machines-3";
    site.setPage(path, { body: listing("jsonld-itemlist/base.html") });
    const url = site.urlFor(path);
    const user = `did the rival drop or add any products on this one page? ${url}`;
    expect(decisionWantsSet(user)).toBe(true);
    record(user, { url, watch: "one" }, setDefinition("/price"), SINGLE_PAGE);

    const { state } = await converse(user);

    const sample = received(matchedBy("-3-propose"));
    expect(sample).not.toContain('"codeDraft":');
    const repair = received(matchedBy("-4-repair"));
    expect(repair).toContain("The sample is one page or place, not a set of members: remove the `set` part");
    const tracker = await getTracker(t.db, { userId, trackerId: state.tracker?.id ?? "" });
    expect(tracker.capabilityInput).not.toHaveProperty("listing");
    expect(state.draft?.definition.set).toBeUndefined();
  });
});
