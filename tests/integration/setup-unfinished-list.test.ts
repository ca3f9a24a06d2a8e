import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSetupSession, getSetupState, linkSetupTracker, openEditSession } from "@/server/intelligence/setup";
import { createTracker, discardUnfinishedSetup, getTracker, listUnfinishedSetups } from "@/server/trackers";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * The one list of unfinished setups /trackers and /trackers/new show (docs/trackers.md, "Unfinished setups"): each
 * with its decision, its address or none yet, and its last activity; an edit of a live tracker listed as "Editing v2
 * of …", apart from new drafts; equal decisions told apart by their address's host; a conversation whose only content
 * is a refused address not listed until the person goes on; Discard deleting a new setup and only closing an edit.
 */

let t: TTestDb;
let site: TFixtureSite;
let userId: string;

beforeAll(async () => ({ t, site, userId } = await openSiteWorld()));
afterAll(() => closeSiteWorld(t, site));

const turn = (who: string, sessionId: string, text: string) =>
  setupTurn(t.db, { userId: who, sessionId, text, config: localCapabilityConfig([site.url]), model: null });

const shop = `<!doctype html><html><head><title>Gizmo</title></head><body><main><h1>Gizmo</h1>
  <p>Price <span id="price">$12.00</span></p></main></body></html>`;

const definition = {
  fields: [
    {
      name: "price",
      type: "money",
      currency: "USD",
      description: "Price",
      extractor: { kind: "css", selector: "#price" },
    },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

async function person(id: string) {
  return (await t.db.user.create({ data: { id, name: id } })).id;
}

describe("the unfinished-setups list", () => {
  it("lists new drafts, an edit of a live tracker and a setup without an address, each explaining itself", async () => {
    const dana = await person("dana");
    site.setPage("/unfinished/gizmo", { body: shop });

    // A new draft, bound through the chat.
    const bound = await createSetupSession(t.db, { userId: dana });
    await turn(dana, bound.id, `Is the gizmo getting cheaper? ${site.urlFor("/unfinished/gizmo")}`);
    const boundTracker = (await getSetupState(t.db, { userId: dana, sessionId: bound.id })).tracker?.id as string;
    // The same decision on another shop (a draft tracker linked as setup links it).
    const elsewhere = await createTracker(t.db, {
      userId: dana,
      decision: "Is the gizmo getting cheaper?",
      capability: "web.scrape",
      capabilityInput: { url: "https://www.other-shop.example/gizmo" },
    });
    const elsewhereSession = await createSetupSession(t.db, { userId: dana });
    await linkSetupTracker(t.db, { userId: dana, sessionId: elsewhereSession.id, trackerId: elsewhere.id });

    // A setup that has a decision but no address yet.
    const noAddress = await createSetupSession(t.db, { userId: dana });
    const asked = await turn(dana, noAddress.id, "Is the venue changing its opening hours?");
    expect(asked.last?.text).toContain("Which page or place should I watch");

    // A refused address, and nothing else: not an unfinished setup.
    const refused = await createSetupSession(t.db, { userId: dana });
    const refusal = await turn(dana, refused.id, "Is the router cheaper now? http://10.0.0.1/router");
    expect(refusal.replies.find((b) => b.kind === "error")?.text).toMatch(/10\.0\.0\.1/);

    // An empty conversation (opened, nothing said): not listed either.
    await createSetupSession(t.db, { userId: dana });

    // A live tracker being edited.
    const { tracker: live } = await createActiveTracker(t.db, {
      userId: dana,
      decision: "Is the rival pulling ahead?",
      capability: "web.scrape",
      capabilityInput: { url: "https://rival.example/pricing" },
      definition,
    });
    const edit = await openEditSession(t.db, { userId: dana, trackerId: live.id });

    const { setups, asOf } = await listUnfinishedSetups(t.db, { userId: dana });
    expect(asOf).toBeInstanceOf(Date);
    const byKey = new Map(setups.map((s) => [s.key, s]));
    expect(setups.map((s) => s.key).sort()).toEqual([bound.id, elsewhereSession.id, noAddress.id, edit.id].sort());
    expect(byKey.has(refused.id)).toBe(false);

    // Equal decisions get distinct titles by where they look.
    const siteHost = new URL(site.url).hostname;
    expect(byKey.get(bound.id)).toMatchObject({
      kind: "new",
      title: `Is the gizmo getting cheaper? — ${siteHost}`,
      decision: "Is the gizmo getting cheaper?",
      address: expect.stringContaining(siteHost),
      trackerId: boundTracker,
      editingVersion: null,
    });
    expect(byKey.get(elsewhereSession.id)).toMatchObject({
      title: "Is the gizmo getting cheaper? — other-shop.example",
      address: expect.stringContaining("other-shop.example"),
    });
    expect(byKey.get(noAddress.id)).toMatchObject({
      kind: "new",
      title: "Is the venue changing its opening hours?",
      address: null,
      trackerId: null,
    });
    expect(byKey.get(edit.id)).toMatchObject({
      kind: "edit",
      title: "Editing v2 of Is the rival pulling ahead?",
      decision: "Is the rival pulling ahead?",
      address: expect.stringContaining("rival.example"),
      editingVersion: 2,
      discardAfter: null,
      trackerId: live.id,
    });

    // Last activity: the conversation's (or the draft's) latest change, newest first; new setups go after 14 days.
    const noAddressRow = await t.db.setupSession.findUniqueOrThrow({ where: { id: noAddress.id } });
    expect(byKey.get(noAddress.id)?.lastActivityAt.getTime()).toBe(noAddressRow.updatedAt.getTime());
    expect(byKey.get(noAddress.id)?.discardAfter?.getTime()).toBe(noAddressRow.updatedAt.getTime() + 14 * 86_400_000);
    const times = setups.map((s) => s.lastActivityAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(setups[0]?.key).toBe(edit.id);

    // The person goes on after the refusal: now it is an unfinished setup, with no address yet.
    await turn(dana, refused.id, "I will look for the shop's public page first");
    const after = await listUnfinishedSetups(t.db, { userId: dana });
    expect(after.setups.find((s) => s.key === refused.id)).toMatchObject({
      title: "Is the router cheaper now?",
      address: null,
    });
    expect(after.setups[0]?.key).toBe(refused.id);

    // Someone else sees none of it.
    const erin = await person("erin");
    expect((await listUnfinishedSetups(t.db, { userId: erin })).setups).toEqual([]);
  });

  it("numbers titles that are still equal with the same host, oldest first", async () => {
    const fay = await person("fay");
    const made: string[] = [];
    for (const minutes of [30, 10]) {
      const tracker = await createTracker(t.db, {
        userId: fay,
        decision: "Is it in stock?",
        capability: "web.scrape",
        capabilityInput: { url: "https://shop.example/a" },
      });
      const session = await createSetupSession(t.db, { userId: fay });
      await linkSetupTracker(t.db, { userId: fay, sessionId: session.id, trackerId: tracker.id });
      const at = new Date(Date.now() - minutes * 60_000);
      await t.db.tracker.update({ where: { id: tracker.id }, data: { updatedAt: at } });
      await t.db.setupSession.update({ where: { id: session.id }, data: { updatedAt: at } });
      made.push(session.id);
    }
    const { setups } = await listUnfinishedSetups(t.db, { userId: fay });
    expect(setups.map((s) => [s.key, s.title])).toEqual([
      [made[1], "Is it in stock? — shop.example (2)"],
      [made[0], "Is it in stock? — shop.example (1)"],
    ]);
  });

  it("discards a setup without an address and a new draft, and only closes an edit of a live tracker", async () => {
    const gus = await person("gus");
    const noAddress = await createSetupSession(t.db, { userId: gus });
    await turn(gus, noAddress.id, "Does the bakery open on Sundays now?");
    const draft = await createTracker(t.db, {
      userId: gus,
      decision: "Is the kettle back?",
      capability: "web.scrape",
      capabilityInput: { url: "https://shop.example/kettle" },
    });
    const draftSession = await createSetupSession(t.db, { userId: gus });
    await linkSetupTracker(t.db, { userId: gus, sessionId: draftSession.id, trackerId: draft.id });
    const { tracker: live } = await createActiveTracker(t.db, {
      userId: gus,
      decision: "Is the rival cheaper?",
      capability: "web.scrape",
      capabilityInput: { url: "https://rival.example/" },
      definition,
    });
    const edit = await openEditSession(t.db, { userId: gus, trackerId: live.id });
    expect((await listUnfinishedSetups(t.db, { userId: gus })).setups).toHaveLength(3);

    // Another person's id is not found, and nothing changes.
    const hal = await person("hal");
    await expect(discardUnfinishedSetup(t.db, { userId: hal, sessionId: edit.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });

    expect(await discardUnfinishedSetup(t.db, { userId: gus, sessionId: noAddress.id })).toEqual({
      sessionId: noAddress.id,
      outcome: "deleted",
    });
    expect(await t.db.setupSession.findUnique({ where: { id: noAddress.id } })).toBeNull();
    expect(await discardUnfinishedSetup(t.db, { userId: gus, sessionId: draftSession.id })).toMatchObject({
      outcome: "deleted",
    });
    expect(await t.db.tracker.findUnique({ where: { id: draft.id } })).toBeNull();
    expect(await discardUnfinishedSetup(t.db, { userId: gus, sessionId: edit.id })).toMatchObject({
      outcome: "closed",
    });
    // The live tracker keeps running at v1; its draft v2 waits for the next "Edit definition".
    const kept = await getTracker(t.db, { userId: gus, trackerId: live.id });
    expect(kept).toMatchObject({ status: "active", lockedVersion: 1 });
    expect(await t.db.trackerDefinition.count({ where: { trackerId: live.id, version: 2, lockedAt: null } })).toBe(1);
    expect((await listUnfinishedSetups(t.db, { userId: gus })).setups).toEqual([]);
    expect((await openEditSession(t.db, { userId: gus, trackerId: live.id })).id).toBe(edit.id);
  });
});
