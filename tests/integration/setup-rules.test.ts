import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker } from "@/server/intelligence/refresh";
import {
  createSetupSession,
  getSetupState,
  listOpenSetupSessions,
  NO_TARGET_QUESTION,
  openEditSession,
  saveSetupDraft,
} from "@/server/intelligence/setup";
import { getLockedDefinition } from "@/server/intelligence/tracker-store";
import { listDefinitionVersions } from "@/server/trackers";
import { ARTICLE_PAGES } from "../fixtures/corpus/pages";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { dataPart, setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { localCapabilityConfig } from "../helpers/trackers";

/** Tracker setup in rules mode (no drafter model): bind from the message, draft from structure, lock, edit → v2. */

const PRICING = `<!doctype html><html><head><title>Acme pricing</title><link rel="canonical" href="/pricing">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Acme Pro",
"offers":{"@type":"Offer","price":"45.00","priceCurrency":"USD","availability":"https://schema.org/InStock"}}</script>
</head><body><main><h1>Pricing</h1><h2>Pro</h2><p>Pro plan $45 per month</p><h2>Team</h2><p>Team plan $99 per month</p></main></body></html>`;

let t: TTestDb;
let site: TFixtureSite;
let userId: string;

beforeAll(async () => {
  ({ t, site, userId } = await openSiteWorld());
  site.setPage("/pricing", { body: PRICING });
  site.setJson("/api/plan", { plan: "pro", price: 45, seats: 5, active: true });
  site.setPage("/logo.png", { body: "PNG", contentType: "image/png" });
});
afterAll(() => closeSiteWorld(t, site));

const refreshOptions = () => ({
  trigger: "manual" as const,
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url]),
});

const turn = (sessionId: string, text: string, allow: string[] = [site.url]) =>
  setupTurn(t.db, { userId, sessionId, text, config: localCapabilityConfig(allow), model: null });

describe("setup in rules mode", () => {
  it("drafts from the page's JSON-LD offer and detected prices, persists, and locks v1 on 'looks good'", async () => {
    const session = await createSetupSession(t.db, { userId });
    const first = await turn(session.id, `Tell me if Acme undercuts our $49 plan — ${site.urlFor("/pricing")}`);
    expect(dataPart(first.reply, "sample")?.target).toBe(site.urlFor("/pricing"));
    expect(dataPart(first.reply, "draft")).toMatchObject({ status: "saved", version: 1 });

    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(state.tracker?.status).toBe("draft");
    const names = state.draft?.definition.fields.map((f) => f.name) ?? [];
    // The product's own price by its structured offer, its stock, and the Team plan by its label — no positions.
    expect(names).toEqual(["acme_pro_price", "availability", "team_plan_price", "title", "headings"]);
    const offer = state.draft?.definition.fields.find((f) => f.name === "acme_pro_price");
    expect(offer).toMatchObject({ type: "money", currency: "USD", extractor: { pointer: "/offers/0/price" } });
    expect(state.draft?.definition.materiality.availability).toEqual({ kind: "any_change" });
    expect(first.last?.text).toMatch(
      /its own price \(45 USD, from the page's structured offer\), its availability \(InStock now; any change counts\)/,
    );
    expect(state.draft?.definition.materiality.acme_pro_price).toEqual({ kind: "numeric", relative: 0.01 });
    expect(state.draft?.definition.identityRule).toEqual({ kind: "canonical_url" });
    expect(state.draft?.view.rules).toContain("acme_pro_price: material on a 1% move or more");

    const chat = await turn(session.id, "add a field for the annual price");
    expect(chat.last?.kind).toBe("info");
    expect(chat.last?.text).toMatch(/AI is off/);

    const locked = await turn(session.id, "looks good");
    expect(dataPart(locked.reply, "locked")).toMatchObject({ version: 1 });
    const trackerId = state.tracker?.id ?? "";
    const v1 = await getLockedDefinition(t.db, trackerId);
    expect(v1?.version).toBe(1);
    expect(v1?.definition.fields.map((f) => f.name)).toEqual(names);

    // The locked definition's extractors work in the hot loop: the baseline has the sample's values.
    const run = await refreshTracker(t.db, trackerId, refreshOptions());
    expect(run.status).toBe("completed");
    const state45 = await t.db.entityCurrentState.findFirst({ where: { entity: { trackerId } } });
    expect(state45?.fields).toMatchObject({
      acme_pro_price: { amount: 45, currency: "USD" },
      availability: "InStock",
      team_plan_price: { amount: 99, currency: "USD" },
    });
  });

  it("keeps each user's setup conversations private and lists the open ones to resume", async () => {
    const session = await createSetupSession(t.db, { userId });
    await turn(session.id, `Resume me ${site.urlFor("/api/plan")}`);
    const other = await t.db.user.create({ data: { id: "someone-else", name: "Someone else" } });
    await expect(getSetupState(t.db, { userId: other.id, sessionId: session.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    const open = await listOpenSetupSessions(t.db, { userId });
    expect(open[0]).toMatchObject({ sessionId: session.id, title: expect.stringContaining("Resume me") });
    expect(await listOpenSetupSessions(t.db, { userId: other.id })).toEqual([]);
  });

  it("refuses a second message while a turn of the same conversation is running", async () => {
    const session = await createSetupSession(t.db, { userId });
    site.setPage("/slow", { body: "<html><body><h1>Slow</h1><p>$5</p></body></html>", delayMs: 300 });
    const first = turn(session.id, `Watch ${site.urlFor("/slow")}`);
    await expect(turn(session.id, "looks good")).rejects.toMatchObject({ code: "CONFLICT" });
    await first;
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(state.draft).not.toBeNull();
  });

  it("on an article, drafts its main text as an ask-the-agent field, no price field, and says so in the reply", async () => {
    const article = ARTICLE_PAGES.find((a) => a.id === "article-news-en");
    site.setPage("/news/kettle", { body: article?.render(article.body) ?? "" });
    const session = await createSetupSession(t.db, { userId });
    const r = await turn(
      session.id,
      `Tell me if the kettle price changes or the story is updated ${site.urlFor("/news/kettle")}`,
    );
    expect(r.last?.text).toMatch(/reads like an article .* added its main text as a field the agent judges/);
    expect(r.last?.text).toMatch(/AI is off, so a change to it is recorded as notable, not judged/);
    expect(r.last?.text).toMatch(/prices it mentions are in passing/);
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    const fields = state.draft?.definition.fields ?? [];
    expect(fields.find((f) => f.name === "main_text")).toMatchObject({
      type: "string_list",
      extractor: { kind: "regex" },
    });
    expect(state.draft?.definition.materiality.main_text).toMatchObject({ kind: "ask_agent" });
    expect(fields.filter((f) => f.type === "money" || f.type === "number")).toEqual([]);
  });

  it("drafts typed fields from a JSON endpoint with JSON pointers into the body", async () => {
    const session = await createSetupSession(t.db, { userId });
    await turn(session.id, `Watch our plan ${site.urlFor("/api/plan")}`);
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    const fields = state.draft?.definition.fields ?? [];
    expect(fields.map((f) => [f.name, f.type, f.extractor])).toEqual([
      ["plan", "string", { kind: "json_pointer", pointer: "/plan" }],
      ["price", "number", { kind: "json_pointer", pointer: "/price" }],
      ["seats", "integer", { kind: "json_pointer", pointer: "/seats" }],
      ["active", "boolean", { kind: "json_pointer", pointer: "/active" }],
    ]);
    expect(state.draft?.definition.identityRule).toEqual({ kind: "input" });
  });

  it("asks back when the message has no usable target, and reports unreachable, private and non-HTML pages in the chat", async () => {
    const session = await createSetupSession(t.db, { userId });
    const none = await turn(session.id, "Tell me if Acme undercuts us");
    expect(none.last).toEqual({ kind: "question", text: NO_TARGET_QUESTION });

    const missing = await turn(session.id, `Here: ${site.urlFor("/nope")}`);
    expect(missing.last?.kind).toBe("error");
    expect(missing.last?.text).toMatch(/could not read .*\/nope/);

    const privateUrl = await turn(session.id, "Here: http://10.0.0.7/pricing");
    expect(privateUrl.last?.kind).toBe("error");
    // Refused at binding, before any fetch, naming the host (docs/design.md §8).
    expect(privateUrl.last?.text).toMatch(
      /Cannot watch http:\/\/10\.0\.0\.7\/pricing: 10\.0\.0\.7 is not a public address/,
    );

    // Unreachable: an allowed host where nothing listens (port 9, discard) → connection refused.
    const unreachable = await turn(session.id, "Here: http://127.0.0.1:9/pricing", [site.url, "http://127.0.0.1:9"]);
    expect(unreachable.last?.kind).toBe("error");
    expect(unreachable.last?.text).toMatch(/could not read http:\/\/127\.0\.0\.1:9\/pricing: /);

    const png = await turn(session.id, `Here: ${site.urlFor("/logo.png")}`);
    expect(png.last?.text).toMatch(/not a web page \(image\/png\)/);

    // Still usable: a good address now binds and drafts.
    const ok = await turn(session.id, site.urlFor("/pricing"));
    expect(dataPart(ok.reply, "draft")?.status).toBe("saved");
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.messages).toHaveLength(12);
    expect(state.tracker?.decision).toBe("Tell me if Acme undercuts us");
  });

  it("editing an active tracker's definition creates v2; v1 stays readable and changes keep the version they used", async () => {
    const session = await createSetupSession(t.db, { userId });
    await turn(session.id, `Watch ${site.urlFor("/api/plan")}`);
    await turn(session.id, "looks good");
    const trackerId = (await getSetupState(t.db, { userId, sessionId: session.id })).tracker?.id ?? "";
    await refreshTracker(t.db, trackerId, refreshOptions());

    const edit = await openEditSession(t.db, { userId, trackerId });
    expect(edit.id).toBe(session.id);
    const reopened = await getSetupState(t.db, { userId, sessionId: edit.id });
    expect(reopened.status).toBe("open");
    expect(reopened.draft?.version).toBe(2);
    const def = reopened.draft?.definition;
    if (!def) throw new Error("no draft");
    const { seats: _seats, ...withoutSeats } = def.materiality;
    await saveSetupDraft(t.db, {
      userId,
      sessionId: edit.id,
      definition: { ...def, fields: def.fields.filter((f) => f.name !== "seats"), materiality: withoutSeats },
    });
    const lock = await turn(edit.id, "looks good");
    expect(dataPart(lock.reply, "locked")).toMatchObject({ version: 2 });

    const versions = await listDefinitionVersions(t.db, { userId, trackerId });
    expect(versions.map((v) => [v.version, v.inForce])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(versions[1]?.definition.fields.map((f) => f.name)).toContain("seats");
    expect(versions[0]?.definition.fields.map((f) => f.name)).not.toContain("seats");

    site.setJson("/api/plan", { plan: "pro", price: 39, seats: 5, active: true });
    await refreshTracker(t.db, trackerId, refreshOptions());
    const rows = await t.db.entityChange.findMany({ where: { trackerId }, orderBy: { capturedAt: "asc" } });
    expect(rows.map((r) => r.definitionVersion)).toEqual([1, 2]);
  });
});
