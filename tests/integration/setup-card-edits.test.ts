import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addField,
  asCardDefinition,
  DEFAULT_RULE_FORM,
  EMPTY_FIELD_FORM,
  formToField,
  formToRule,
  replaceField,
  setThresholdValue,
  type TRuleForm,
} from "@/components/tracker-setup/card-edits";
import { AppError } from "@/server/errors";
import { createSetupSession, getSetupState, saveSetupDraft } from "@/server/intelligence/setup";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { localCapabilityConfig } from "../helpers/trackers";

/** Draft-card edits through the real save path: valid edits are stored, invalid ones refused with nothing saved. */

const PRICING = `<!doctype html><html><head><title>Acme pricing</title><link rel="canonical" href="/pricing">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Acme Pro",
"offers":{"@type":"Offer","price":"45.00","priceCurrency":"USD"}}</script>
</head><body><main><h1>Pricing</h1><p>Pro plan $45 per month</p></main></body></html>`;

let t: TTestDb;
let site: TFixtureSite;
let userId: string;

beforeAll(async () => {
  ({ t, site, userId } = await openSiteWorld());
  site.setPage("/pricing", { body: PRICING });
});
afterAll(() => closeSiteWorld(t, site));

async function draftedSession() {
  const session = await createSetupSession(t.db, { userId });
  await setupTurn(t.db, {
    userId,
    sessionId: session.id,
    text: `Watch ${site.urlFor("/pricing")}`,
    config: localCapabilityConfig([site.url]),
    model: null,
  });
  const state = await getSetupState(t.db, { userId, sessionId: session.id });
  const definition = asCardDefinition(state.draft?.definition);
  if (!definition) throw new Error("no draft");
  return { sessionId: session.id, definition };
}

/** A numeric rule as the field editor makes it: typing a threshold picks its mode (setThresholdValue). */
const numeric = (typed: { absolute?: string; relativePercent?: string }) => {
  let form: TRuleForm = { ...DEFAULT_RULE_FORM, kind: "numeric" };
  if (typed.absolute !== undefined) form = setThresholdValue(form, "absolute", typed.absolute);
  if (typed.relativePercent !== undefined) form = setThresholdValue(form, "relative", typed.relativePercent);
  const r = formToRule(form);
  if (!r.ok) throw new Error(r.error);
  return r.rule;
};

describe("draft card edits through saveSetupDraft", () => {
  it("stores a changed threshold and an added field; the card's rules read them in plain language", async () => {
    const { sessionId, definition } = await draftedSession();
    const offer = definition.fields.find((f) => f.name === "acme_pro_price");
    if (!offer) throw new Error("no offer field");
    const edited = addField(
      replaceField(definition, offer.name, offer, numeric({ absolute: "5" })),
      formToField({ ...EMPTY_FIELD_FORM, name: "annual_price", type: "money", currency: "usd", description: "Annual" }),
      numeric({ relativePercent: "10" }),
    );
    await saveSetupDraft(t.db, { userId, sessionId, definition: edited });

    const state = await getSetupState(t.db, { userId, sessionId });
    expect(state.draft?.definition.materiality.acme_pro_price).toEqual({ kind: "numeric", absolute: 5 });
    expect(state.draft?.definition.fields.at(-1)).toEqual({
      name: "annual_price",
      type: "money",
      currency: "USD",
      description: "Annual",
    });
    expect(state.draft?.view.rules).toContain("acme_pro_price: material when it moves by 5 USD or more");
    expect(state.draft?.view.rules).toContain("annual_price: material on a 10% move or more");
  });

  it("refuses an invalid edit with a message naming the problem, and saves nothing", async () => {
    const { sessionId, definition } = await draftedSession();
    const before = (await getSetupState(t.db, { userId, sessionId })).draft?.definition;
    const offer = definition.fields.find((f) => f.name === "acme_pro_price");
    if (!offer) throw new Error("no offer field");

    const noThreshold = replaceField(definition, offer.name, offer, numeric({}));
    const error = await saveSetupDraft(t.db, { userId, sessionId, definition: noThreshold }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toMatch(/acme_pro_price.*needs an absolute or a relative threshold/);

    const badName = addField(definition, formToField({ ...EMPTY_FIELD_FORM, name: "Annual Price", description: "x" }), {
      kind: "any_change",
    });
    await expect(saveSetupDraft(t.db, { userId, sessionId, definition: badName })).rejects.toThrow(/snake_case/);

    expect((await getSetupState(t.db, { userId, sessionId })).draft?.definition).toEqual(before);
  });
});
