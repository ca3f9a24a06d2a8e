import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveContextFile } from "@/server/context";
import { refreshTracker } from "@/server/intelligence/refresh";
import { applyContextFilesToDraft, createSetupSession, getSetupState } from "@/server/intelligence/setup";
import { queryTimeline } from "@/server/timeline";
import { rivalPage } from "../fixtures/context-example";
import type { TFixtureSite } from "../fixtures/site/site";
import { utf8 } from "../helpers/context-fixtures";
import type { TTestDb } from "../helpers/db";
import { dataPart, setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * Context files in setup, rules mode (docs/context-files.md, "While drafting"): a file attached while drafting that states "our price is 10.00" makes the card
 * bind our_price and propose "material when it drops below our_price"; once locked, the seed's move is decided by
 * code with no model.
 */

let t: TTestDb;
let site: TFixtureSite;
let userId: string;

beforeAll(async () => ({ t, site, userId } = await openSiteWorld()));
afterAll(() => closeSiteWorld(t, site));

const turn = (sessionId: string, text: string) =>
  setupTurn(t.db, { userId, sessionId, text, config: localCapabilityConfig([site.url]), model: null });

describe("setup proposes a context rule from an attached file", () => {
  it("binds our_price from the file, and the locked tracker decides 12.00 → 9.90 by code", async () => {
    site.setPage("/setup-rival", { body: rivalPage("12.00") });
    const session = await createSetupSession(t.db, { userId });
    await turn(session.id, `Are we undercut? ${site.urlFor("/setup-rival")}`);
    const drafted = await getSetupState(t.db, { userId, sessionId: session.id });
    const money = drafted.draft?.definition.fields.find((f) => f.type === "money");
    expect(money, JSON.stringify(drafted.draft?.definition.fields)).toBeDefined();
    const field = money?.name as string;
    const trackerId = drafted.tracker?.id as string;

    await saveContextFile(t.db, {
      userId,
      trackerId,
      name: "price-list.txt",
      mediaType: "text/plain",
      bytes: utf8(`Price list\nour ${field.replace(/_/g, " ")} is 10.00 USD\n`),
    });
    const proposal = await turn(session.id, "looks good");
    expect(proposal.replies.map((b) => b.text).join(" ")).toContain(
      `so I added ${field}: material when it drops below our_${field}`,
    );
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.tracker?.lockedVersion).toBeNull();
    expect(state.draft?.definition.contextRules).toEqual([{ field, value: `our_${field}`, when: "drops_below" }]);

    await turn(session.id, "looks good");
    expect((await getSetupState(t.db, { userId, sessionId: session.id })).tracker?.lockedVersion).toBe(1);

    const rules = {
      trigger: "manual" as const,
      models: { filler: null, judge: null },
      capabilityConfig: localCapabilityConfig([site.url]),
    };
    await refreshTracker(t.db, trackerId, rules);
    site.setPage("/setup-rival", { body: rivalPage("9.90") });
    expect(await refreshTracker(t.db, trackerId, rules)).toMatchObject({ outcome: "material", modelCalls: 0 });
    const [change] = (await queryTimeline(t.db, { trackerId })).items;
    expect(change?.decisions[field]).toMatchObject({ decidedBy: "code", rule: "context" });
    expect(change?.citations[0]?.quote).toBe(`our ${field.replace(/_/g, " ")} is 10.00 USD`);
  });

  it("files attached as soon as the page is bound shape the draft at once, without another message", async () => {
    site.setPage("/setup-rival-early", { body: rivalPage("12.00") });
    const session = await createSetupSession(t.db, { userId });
    // Before binding there is no tracker to attach to, and nothing to apply (the page holds the files meanwhile).
    expect(await applyContextFilesToDraft(t.db, { userId, sessionId: session.id })).toBeNull();
    const bound = await turn(session.id, `Are we undercut? ${site.urlFor("/setup-rival-early")}`);
    // The binding says which tracker it created: the card attaches to it as soon as the turn ends.
    const trackerId = dataPart(bound.reply, "sample")?.trackerId as string;
    expect(trackerId).toBeTruthy();
    const drafted = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(drafted.tracker?.id).toBe(trackerId);
    const field = drafted.draft?.definition.fields.find((f) => f.type === "money")?.name as string;
    expect(drafted.draft?.definition.contextRules ?? []).toEqual([]);
    // Nothing attached yet: nothing to apply.
    expect(await applyContextFilesToDraft(t.db, { userId, sessionId: session.id })).toBeNull();

    await saveContextFile(t.db, {
      userId,
      trackerId,
      name: "price-list.txt",
      mediaType: "text/plain",
      bytes: utf8(`our ${field.replace(/_/g, " ")} is 10.00 USD\n`),
    });
    const applied = await applyContextFilesToDraft(t.db, { userId, sessionId: session.id });
    expect(applied?.said.join(" ")).toContain(`so I added ${field}: material when it drops below our_${field}`);
    expect(applied?.draft?.definition.contextRules).toEqual([{ field, value: `our_${field}`, when: "drops_below" }]);
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.draft?.definition.contextValues).toEqual([
      { name: `our_${field}`, label: `our ${field.replace(/_/g, " ")}`, file: "price-list.txt" },
    ]);
    // Applied once: a second call finds the rule already there.
    expect(await applyContextFilesToDraft(t.db, { userId, sessionId: session.id })).toBeNull();
  });
});
