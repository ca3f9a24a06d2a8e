import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  asCardDefinition,
  formToRule,
  replaceField,
  ruleToForm,
  setThresholdMode,
  setThresholdValue,
  type TRuleForm,
} from "@/components/tracker-setup/card-edits";
import { describeRule } from "@/server/intelligence/definition";
import { refreshTracker } from "@/server/intelligence/refresh";
import {
  createSetupSession,
  getSetupState,
  lockSetup,
  openEditSession,
  saveSetupDraft,
} from "@/server/intelligence/setup";
import { getLockedDefinition, getTracker } from "@/server/intelligence/tracker-store";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { dataPart, setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * The setup card (docs/trackers.md, "Thresholds say how they combine"): a threshold typed on the card is the only one the locked definition keeps (the
 * drafted 1 % does not linger beside it), and in rules mode simple chat edits change the card as stated.
 */

const pricing = (price: string) => `<!doctype html><html><head><title>Acme pricing</title>
<link rel="canonical" href="/pricing">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Acme Pro",
"offers":{"@type":"Offer","price":"${price}","priceCurrency":"USD","availability":"https://schema.org/InStock"}}</script>
</head><body><main><h1>Pricing</h1><h2>Pro</h2><p>Pro plan $${price} per month</p><h2>Team</h2><p>Team plan $99 per month</p></main></body></html>`;

let t: TTestDb;
let site: TFixtureSite;
let userId: string;

beforeAll(async () => ({ t, site, userId } = await openSiteWorld()));
afterAll(() => closeSiteWorld(t, site));

const config = () => localCapabilityConfig([site.url]);
const turn = (sessionId: string, text: string) =>
  setupTurn(t.db, { userId, sessionId, text, config: config(), model: null });

/** A rules-mode draft of a page of its own (so trackers do not share a page). */
async function drafted(path: string) {
  site.setPage(path, { body: pricing("45.00") });
  const session = await createSetupSession(t.db, { userId });
  await turn(session.id, `Tell me if Acme undercuts our $49 plan — ${site.urlFor(path)}`);
  const state = await getSetupState(t.db, { userId, sessionId: session.id });
  const definition = asCardDefinition(state.draft?.definition);
  const trackerId = state.tracker?.id;
  if (!definition || !trackerId) throw new Error("no draft");
  expect(definition.materiality.acme_pro_price).toEqual({ kind: "numeric", relative: 0.01 });
  return { sessionId: session.id, trackerId, definition };
}

/** What the field editor does as the person types: the same pure transitions (field-editor.tsx). */
function editRule(start: TRuleForm, steps: ((form: TRuleForm) => TRuleForm)[]) {
  const form = steps.reduce((f, step) => step(f), start);
  const rule = formToRule(form);
  if (!rule.ok) throw new Error(rule.error);
  return rule.rule;
}

describe("thresholds set on the card", () => {
  it("an amount typed over the drafted 1 % leaves no relative threshold in the locked definition, and a $0.49 move is noise", async () => {
    const { sessionId, trackerId, definition } = await drafted("/abs/pricing");
    const offer = definition.fields.find((f) => f.name === "acme_pro_price");
    if (!offer) throw new Error("no offer field");
    const start = ruleToForm(definition.materiality.acme_pro_price);
    expect(start).toMatchObject({ kind: "numeric", threshold: "relative", relativePercent: "1" });

    // The person types $10 and picks "only drops" — nothing else.
    const rule = editRule(start, [
      (f) => setThresholdValue(f, "absolute", "1"),
      (f) => setThresholdValue(f, "absolute", "10"),
      (f) => ({ ...f, direction: "down" }),
    ]);
    await saveSetupDraft(t.db, { userId, sessionId, definition: replaceField(definition, offer.name, offer, rule) });
    const locked = await lockSetup(t.db, { userId, sessionId });
    expect(locked.version).toBe(1);

    const v1 = await getLockedDefinition(t.db, trackerId);
    expect(v1?.definition.materiality.acme_pro_price).toEqual({ kind: "numeric", absolute: 10, direction: "down" });
    const field = v1?.definition.fields.find((f) => f.name === "acme_pro_price");
    expect(describeRule(field ?? offer, v1?.definition.materiality.acme_pro_price)).toBe(
      "acme_pro_price: material when it falls by 10 USD or more (rises are noise)",
    );

    // The hot loop judges by the locked rule: 45.00 → 44.51 is noise (under the old 1 % it was material).
    const refresh = () =>
      refreshTracker(t.db, trackerId, {
        trigger: "manual",
        models: { filler: null, judge: null },
        capabilityConfig: config(),
      });
    expect((await refresh()).status).toBe("completed");
    site.setPage("/abs/pricing", { body: pricing("44.51") });
    await refresh();
    site.setPage("/abs/pricing", { body: pricing("34.51") });
    await refresh();
    const changes = await t.db.entityChange.findMany({ where: { trackerId }, orderBy: { capturedAt: "asc" } });
    const priceChanges = changes.filter((c) => Object.hasOwn(c.delta as object, "acme_pro_price"));
    expect(
      priceChanges.map((c) => [c.materiality, (c.delta as Record<string, { to: unknown }>).acme_pro_price?.to]),
    ).toEqual([
      ["baseline", { amount: 45, currency: "USD" }],
      ["material", { amount: 34.51, currency: "USD" }],
    ]);
  });

  it("“either” and “both” are explicit choices that keep both thresholds, and are locked as chosen", async () => {
    const { sessionId, trackerId, definition } = await drafted("/both/pricing");
    const offer = definition.fields.find((f) => f.name === "acme_pro_price");
    if (!offer) throw new Error("no offer field");
    const start = ruleToForm(definition.materiality.acme_pro_price);
    // Choosing "both" first keeps the 1 %, so typing an amount adds to it instead of replacing it.
    const both = editRule(start, [(f) => setThresholdMode(f, "both"), (f) => setThresholdValue(f, "absolute", "10")]);
    expect(both).toEqual({ kind: "numeric", absolute: 10, relative: 0.01, combine: "both" });
    // A one-threshold mode picked afterwards drops the other: back to the amount alone.
    expect(
      editRule(start, [
        (f) => setThresholdMode(f, "both"),
        (f) => setThresholdValue(f, "absolute", "10"),
        (f) => setThresholdMode(f, "absolute"),
      ]),
    ).toEqual({
      kind: "numeric",
      absolute: 10,
    });

    await saveSetupDraft(t.db, { userId, sessionId, definition: replaceField(definition, offer.name, offer, both) });
    await lockSetup(t.db, { userId, sessionId });
    const v1 = await getLockedDefinition(t.db, trackerId);
    expect(v1?.definition.materiality.acme_pro_price).toEqual({
      kind: "numeric",
      absolute: 10,
      relative: 0.01,
      combine: "both",
    });
    expect(describeRule(offer, v1?.definition.materiality.acme_pro_price)).toBe(
      "acme_pro_price: material when it moves both by 10 USD or more and by 1% or more",
    );
  });
});

describe("rules-mode chat edits through the setup turn", () => {
  it("change the card as stated, answer anything else with what the card can do, and lock what the card shows", async () => {
    const { sessionId, trackerId } = await drafted("/chat/pricing");

    const drop = await turn(sessionId, "only if it drops more than 10 %");
    const card = dataPart(drop.reply, "draft");
    expect(card?.status).toBe("saved");
    expect(card?.status === "saved" && card.view.rules).toContain(
      "acme_pro_price: material on a 10% drop or more (rises are noise)",
    );
    expect(drop.last?.text).toMatch(/^acme_pro_price: material on a 10% drop or more \(rises are noise\)\./);
    let state = await getSetupState(t.db, { userId, sessionId });
    expect(state.draft?.definition.materiality.acme_pro_price).toEqual({
      kind: "numeric",
      relative: 0.1,
      direction: "down",
    });

    await turn(sessionId, "remove title");
    const hourly = await turn(sessionId, "check every 15 minutes");
    const hourlyCard = dataPart(hourly.reply, "draft");
    expect(hourlyCard?.status === "saved" && hourlyCard.scheduleMinutes).toBe(15);
    expect(hourly.last?.text).toMatch(/^It checks every 15 minutes\./);
    state = await getSetupState(t.db, { userId, sessionId });
    expect(state.draft?.definition.fields.map((f) => f.name)).not.toContain("title");
    expect(state.tracker?.scheduleMinutes).toBe(15);
    // Still a draft: no run is scheduled before the lock.
    expect((await getTracker(t.db, { userId, trackerId })).nextRunAt).toBeNull();

    // Not understood → says what it can do, changes nothing.
    const before = state.draft?.definition;
    const vague = await turn(sessionId, "make the price thing smarter");
    expect(vague.last?.kind).toBe("info");
    expect(vague.last?.text).toMatch(
      /^AI is off, so I understand simple edits to the card only, such as “only if it drops more than 10 %”/,
    );
    expect(vague.last?.text).toContain("“check every hour”");
    expect(dataPart(vague.reply, "draft")).toBeUndefined();
    const missing = await turn(sessionId, "remove rating");
    expect(missing.last?.text).toMatch(/^There is no field like “rating” on the card \(its fields: acme_pro_price, /);
    expect((await getSetupState(t.db, { userId, sessionId })).draft?.definition).toEqual(before);

    await turn(sessionId, "looks good");
    const v1 = await getLockedDefinition(t.db, trackerId);
    expect(v1?.definition.materiality.acme_pro_price).toEqual({ kind: "numeric", relative: 0.1, direction: "down" });
    expect(v1?.definition.fields.map((f) => f.name)).not.toContain("title");
    const active = await getTracker(t.db, { userId, trackerId });
    expect(active).toMatchObject({ status: "active", scheduleMinutes: 15 });

    // Editing the active tracker later: a shorter schedule from chat moves its next run earlier, never later.
    const edit = await openEditSession(t.db, { userId, trackerId });
    await t.db.tracker.update({ where: { id: trackerId }, data: { nextRunAt: new Date(Date.now() + 86_400_000) } });
    await turn(edit.id, "daily");
    const daily = await getTracker(t.db, { userId, trackerId });
    expect(daily.scheduleMinutes).toBe(1440);
    expect(daily.nextRunAt?.getTime()).toBeLessThanOrEqual(Date.now() + 86_400_000);
    await turn(edit.id, "every 15 minutes");
    const quick = await getTracker(t.db, { userId, trackerId });
    expect(quick.nextRunAt?.getTime()).toBeLessThan(Date.now() + 20 * 60_000);
  });
});
