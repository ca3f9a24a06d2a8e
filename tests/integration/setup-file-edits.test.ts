import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveContextValues, saveContextFile } from "@/server/context";
import { refreshTracker } from "@/server/intelligence/refresh";
import { createSetupSession, getSetupState, saveSetupDraft } from "@/server/intelligence/setup";
import { queryTimeline } from "@/server/timeline";
import { rivalPage } from "../fixtures/context-example";
import type { TFixtureSite } from "../fixtures/site/site";
import { utf8 } from "../helpers/context-fixtures";
import type { TTestDb } from "../helpers/db";
import { dataPart, setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * Every chat turn answered for what it asked, with AI off (docs/context-files.md, "While drafting"; docs/trackers.md,
 * "Chat edits without a model"): an edit sent right after a file was attached is applied in the same turn as the
 * file's rule; a value a file states goes to the field its words name ("Pro plan: our price 16.00" → pro_price, and
 * the refresh then decides by it); where the words do not say which field, the reply asks — once — and binds on the
 * answer.
 */

let t: TTestDb;
let site: TFixtureSite;
let userId: string;

beforeAll(async () => ({ t, site, userId } = await openSiteWorld()));
afterAll(() => closeSiteWorld(t, site));

const config = () => localCapabilityConfig([site.url]);
const turn = (sessionId: string, text: string) =>
  setupTurn(t.db, { userId, sessionId, text, config: config(), model: null });

const plansPage = (starter: string, pro: string) =>
  `<!doctype html><html><head><title>Acme plans</title></head><body><main><h1>Acme plans</h1>
  <div class="plan"><h3>Starter</h3><p id="starter">$${starter}</p></div>
  <div class="plan"><h3>Pro</h3><p id="pro">$${pro}</p></div></main></body></html>`;

const planField = (name: string, plan: string, selector: string) => ({
  name,
  type: "money",
  currency: "USD",
  description: `The ${plan} plan's monthly price`,
  extractor: { kind: "css", selector },
});
/** The card after the person added the Pro price beside the Starter one. */
const twoPlans = {
  fields: [planField("starter_price", "Starter", "#starter"), planField("pro_price", "Pro", "#pro")],
  identityRule: { kind: "canonical_url" },
  materiality: { starter_price: { kind: "numeric", relative: 0.01 }, pro_price: { kind: "numeric", relative: 0.01 } },
};
/** A card whose one price is named only "price": which plan it is, only its description says. */
const starterAsPrice = {
  fields: [planField("price", "Starter", "#starter")],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.01 } },
};

/** A conversation bound to `path` (rules mode drafts), then the card as the person edited it (`definition`). */
async function boundSetup(path: string, decision: string, definition?: unknown) {
  const session = await createSetupSession(t.db, { userId });
  const first = await turn(session.id, `${decision} ${site.urlFor(path)}`);
  const trackerId = dataPart(first.reply, "sample")?.trackerId as string;
  expect(trackerId).toBeTruthy();
  if (definition) await saveSetupDraft(t.db, { userId, sessionId: session.id, definition });
  return { sessionId: session.id, trackerId };
}

const attach = (trackerId: string, name: string, text: string) =>
  saveContextFile(t.db, { userId, trackerId, name, mediaType: "text/plain", bytes: utf8(text) });

const draftOf = async (sessionId: string) => (await getSetupState(t.db, { userId, sessionId })).draft?.definition;

describe("an edit right after an upload", () => {
  it("is applied in the same turn as the file's rule, and the reply says both", async () => {
    site.setPage("/file-edit/rival", { body: rivalPage("12.00") });
    const { sessionId, trackerId } = await boundSetup("/file-edit/rival", "Are we undercut?");
    const money = (await draftOf(sessionId))?.fields.find((f) => f.type === "money")?.name as string;
    expect(money).toBeTruthy();
    await attach(trackerId, "price-list.txt", "Price list 2026\nour price is 10.00 USD\n");

    const reply = await turn(sessionId, "only if it drops more than 10 %");
    const text = reply.replies.map((b) => b.text).join(" ");
    expect(text).toContain(`so I added ${money}: material when it drops below our_${money}`);
    expect(text).toContain(`${money}: material on a 10% drop or more (rises are noise)`);
    // One draft part, the last save: both changes in it.
    const definition = await draftOf(sessionId);
    expect(definition?.materiality[money]).toEqual({ kind: "numeric", relative: 0.1, direction: "down" });
    expect(definition?.contextRules).toEqual([{ field: money, value: `our_${money}`, when: "drops_below" }]);
    const part = dataPart(reply.reply, "draft");
    expect(part?.status === "saved" ? part.definition : null).toEqual(definition);
  });
});

describe("a value from a file goes to the field its words name", () => {
  it("binds “Pro plan: our price 16.00” to pro_price, not the first price, and the refresh decides by it", async () => {
    site.setPage("/file-edit/plans", { body: plansPage("19", "49") });
    const { sessionId, trackerId } = await boundSetup("/file-edit/plans", "Are we undercut?", twoPlans);
    await attach(trackerId, "prices.txt", "Price list 2026\nPro plan: our price 16.00\n");

    const reply = await turn(sessionId, "use my price list");
    expect(reply.last?.text).toContain(
      "“Pro plan: our price 16.00”, so I added pro_price: material when it drops below our_pro_price",
    );
    const definition = await draftOf(sessionId);
    expect(definition?.contextRules).toEqual([{ field: "pro_price", value: "our_pro_price", when: "drops_below" }]);
    expect(definition?.contextValues).toEqual([{ name: "our_pro_price", label: "our price", file: "prices.txt" }]);

    // Locked, the Pro price falling under ours is material by code; the Starter price is not compared with it.
    await turn(sessionId, "looks good");
    expect((await getSetupState(t.db, { userId, sessionId })).tracker?.lockedVersion).toBe(1);
    const rules = { trigger: "manual" as const, models: { filler: null, judge: null }, capabilityConfig: config() };
    await refreshTracker(t.db, trackerId, rules);
    site.setPage("/file-edit/plans", { body: plansPage("15", "15") });
    expect(await refreshTracker(t.db, trackerId, rules)).toMatchObject({ outcome: "material", modelCalls: 0 });
    const [change] = (await queryTimeline(t.db, { trackerId })).items;
    expect(change?.decisions.pro_price).toMatchObject({ decidedBy: "code", rule: "context" });
    expect(change?.decisions.starter_price).not.toMatchObject({ rule: "context" });
  });

  it("tells two plans' lines apart by the words before “our” when “our price” starts both", async () => {
    site.setPage("/file-edit/plans-both", { body: plansPage("19", "49") });
    const { sessionId, trackerId } = await boundSetup("/file-edit/plans-both", "Are we undercut?", twoPlans);
    await attach(trackerId, "both.txt", "Starter: our price 9.00\nPro: our price 16.00\n");
    await turn(sessionId, "use my price list");
    const definition = await draftOf(sessionId);
    expect(definition?.contextRules).toEqual([
      { field: "starter_price", value: "our_starter_price", when: "drops_below" },
      { field: "pro_price", value: "our_pro_price", when: "drops_below" },
    ]);
    const values = await resolveContextValues(t.db, {
      userId,
      trackerId,
      values: definition?.contextValues ?? [],
    });
    expect(values.our_starter_price?.value).toBe(9);
    expect(values.our_pro_price?.value).toBe(16);
  });

  it("says so, and binds nothing, when the line names a plan the card does not watch", async () => {
    site.setPage("/file-edit/plans-starter", { body: plansPage("19", "49") });
    const { sessionId, trackerId } = await boundSetup("/file-edit/plans-starter", "Are we undercut?", {
      ...twoPlans,
      fields: [twoPlans.fields[0]],
      materiality: { starter_price: { kind: "numeric", relative: 0.01 } },
    });
    await attach(trackerId, "prices.txt", "our Pro price 16.00\n");
    const reply = await turn(sessionId, "use my price list");
    expect(reply.last?.text).toContain("“our Pro price 16.00”, which names none of the card's numbers (starter_price)");
    expect((await draftOf(sessionId))?.contextRules ?? []).toEqual([]);
  });
});

describe("when the words do not say which field", () => {
  it("asks (once) instead of binding a Pro line to a price that says it is the Starter's, and binds on “yes”", async () => {
    site.setPage("/file-edit/starter-as-price", { body: plansPage("19", "49") });
    const { sessionId, trackerId } = await boundSetup(
      "/file-edit/starter-as-price",
      "Are we undercut?",
      starterAsPrice,
    );
    await attach(trackerId, "prices.txt", "Pro plan: our price 16.00\n");

    const asked = await turn(sessionId, "use my price list");
    expect(asked.reply.metadata?.kind).toBe("question");
    expect(asked.last?.text).toContain(
      "Your file “prices.txt” says “Pro plan: our price 16.00”, but price does not say it is about that. Is price what that line is about?",
    );
    expect((await draftOf(sessionId))?.contextRules ?? []).toEqual([]);

    // The next message is answered for what it asks; the question is not asked again.
    const edit = await turn(sessionId, "only if it drops more than 10 %");
    expect(edit.last?.text).toContain("price: material on a 10% drop or more");
    expect(edit.last?.text).not.toContain("Is price what that line is about?");
    expect((await draftOf(sessionId))?.contextRules ?? []).toEqual([]);

    const yes = await turn(sessionId, "yes");
    expect(yes.last?.text).toContain("so I added price: material when it drops below our_price");
    const definition = await draftOf(sessionId);
    expect(definition?.contextRules).toEqual([{ field: "price", value: "our_price", when: "drops_below" }]);
    // The edit of the turn before is still there.
    expect(definition?.materiality.price).toEqual({ kind: "numeric", relative: 0.1, direction: "down" });
  });

  it("asks which of several prices an unnamed “our price” compares with, and binds the one named in the answer", async () => {
    site.setPage("/file-edit/which", { body: plansPage("19", "49") });
    const { sessionId, trackerId } = await boundSetup("/file-edit/which", "Are we undercut?", twoPlans);
    await attach(trackerId, "ours.txt", "our price is 12.00\n");

    const asked = await turn(sessionId, "use my price list");
    expect(asked.reply.metadata?.kind).toBe("question");
    expect(asked.last?.text).toContain(
      "Your file “ours.txt” says “our price is 12.00”: which of the card's numbers does it compare with — starter_price or pro_price?",
    );
    expect((await draftOf(sessionId))?.contextRules ?? []).toEqual([]);

    const answered = await turn(sessionId, "the Pro one");
    expect(answered.last?.text).toContain("so I added pro_price: material when it drops below our_pro_price");
    expect((await draftOf(sessionId))?.contextRules).toEqual([
      { field: "pro_price", value: "our_pro_price", when: "drops_below" },
    ]);
  });
});
