import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePageWorkers } from "@/server/capabilities";
import { getEnv } from "@/server/env";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { getPageView, lockSetup, openEditSession, pointAtElement, rereadSetupPage } from "@/server/intelligence/setup";
import { createChannel, runNotifications, type TNotifyConfig } from "@/server/notifications";
import { listTrackerSummaries } from "@/server/trackers";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { localNotifyConfig, startWebhookReceiver } from "../helpers/notify-receivers";
import { elementShowing } from "../helpers/page-view";
import {
  createActiveTracker,
  cssPriceDefinition,
  fixtureModel,
  localCapabilityConfig,
  priceBody,
} from "../helpers/trackers";

/**
 * Fixing a field that stopped reading, on the page (docs/page-view.md, docs/field-health.md): a redesign breaks the
 * price's anchor → "needs attention" after FIELD_MISSING_AFTER runs and exactly one notice; "Fix it on the page"
 * reads the page again, shows the field reading nothing now and where it was before (from the tracker's last
 * recorded page, as this tracker was made through the API), the person points at the price where it is now, locks,
 * and the tracker reads again with no new timeline entry.
 */

let t: TTestDb;
let site: TFixtureSite;
let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
let models: TModelServer;
let config: TNotifyConfig;
const after = getEnv().FIELD_MISSING_AFTER;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  hook = await startWebhookReceiver();
  models = await startModelServer();
  config = localNotifyConfig(hook.url);
});
afterAll(async () => {
  await models?.close();
  await hook?.close();
  await site?.close();
  await t?.close();
  await closePageWorkers();
});

const capabilityConfig = () => localCapabilityConfig([site.url], { timeoutMs: 5000 });
const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: capabilityConfig(),
});
describe("fix it on the page", () => {
  it("needs attention → one notice → re-read, see where it was, point where it is → the timeline goes on", async () => {
    const decision = "Is Acme's Pro price moving? (fix on page)";
    site.setPage("/redesign", { body: priceBody("$10.00") });
    const { userId, tracker } = await createActiveTracker(t.db, {
      decision,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/redesign") },
      definition: cssPriceDefinition(0.05),
    });
    await createChannel(t.db, { userId, config, channel: { kind: "webhook", target: hook.url } });
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("baseline");

    const redesigned = () =>
      `<main><h1>Our new look</h1><section class="plan"><h2>Pro</h2><p class="cost">$10.00</p></section><script nonce="${Math.random()}">x</script></main>`;
    for (let run = 1; run <= after; run++) {
      site.setPage("/redesign", { body: redesigned() });
      await refreshTracker(t.db, tracker.id, options());
      await runNotifications(t.db, { config });
    }
    const summary = async () => (await listTrackerSummaries(t.db, { userId })).find((s) => s.id === tracker.id);
    expect(await summary()).toMatchObject({ needsAttention: true, fields: { read: 0, total: 1, missing: ["price"] } });
    const notices = () => hook.received.filter((r) => r.body.includes("needs attention") && r.body.includes(decision));
    expect(notices()).toHaveLength(1);

    // The edit page with ?fix=page: a session for the tracker, the page read again.
    const { id: sessionId } = await openEditSession(t.db, { userId, trackerId: tracker.id });
    await rereadSetupPage(t.db, { userId, sessionId, config: capabilityConfig() });
    const now = await getPageView(t.db, { userId, sessionId, which: "current", config: capabilityConfig() });
    if (!now) throw new Error("no page view");
    // What it read before is looked for on the page now and proposed where exactly one element shows it.
    expect(now.fields).toEqual([
      expect.objectContaining({
        name: "price",
        reads: null,
        elements: [],
        proposal: {
          element: elementShowing(now.html, "$10.00"),
          text: "$10.00",
          where: "the price under the heading “Pro”",
          why: null,
        },
      }),
    ]);
    expect(now.hasEarlier).toBe(true);
    const before = await getPageView(t.db, { userId, sessionId, which: "earlier", config: capabilityConfig() });
    if (!before) throw new Error("no earlier page");
    expect(before.fields).toEqual([
      expect.objectContaining({
        name: "price",
        reads: "10 USD",
        elements: [elementShowing(before.html, "$10.00")],
        proposal: null,
      }),
    ]);
    expect(before.html).not.toContain("Our new look");
    // Two elements showing it: nothing is proposed, the person points.
    site.setPage("/redesign", { body: redesigned().replace("</section>", "</section><p>Was $10.00</p>") });
    await rereadSetupPage(t.db, { userId, sessionId, config: capabilityConfig() });
    const ambiguous = await getPageView(t.db, { userId, sessionId, which: "current", config: capabilityConfig() });
    expect(ambiguous?.fields[0]?.proposal).toBeNull();
    site.setPage("/redesign", { body: redesigned() });
    await rereadSetupPage(t.db, { userId, sessionId, config: capabilityConfig() });
    const again = await getPageView(t.db, { userId, sessionId, which: "current", config: capabilityConfig() });
    if (!again) throw new Error("no page view");

    const pointed = await pointAtElement(t.db, {
      userId,
      sessionId,
      element: elementShowing(again.html, "$10.00"),
      field: "price",
      config: capabilityConfig(),
    });
    expect(pointed.said[0]).toBe("Now price reads the price under the heading “Pro”: “$10.00” on the sample.");
    await lockSetup(t.db, { userId, sessionId });

    // The next refresh reads it again: attention clears, nothing new on the timeline, nobody is told again.
    site.setPage("/redesign", { body: redesigned() });
    expect((await refreshTracker(t.db, tracker.id, options())).status).toBe("completed");
    expect(await summary()).toMatchObject({ needsAttention: false, fields: { read: 1, total: 1, missing: [] } });
    const changes = await t.db.entityChange.findMany({ where: { trackerId: tracker.id } });
    expect(changes.map((c) => c.materiality)).toEqual(["baseline"]);
    await runNotifications(t.db, { config });
    expect(notices()).toHaveLength(1);

    // And it follows the price where it is now.
    site.setPage("/redesign", { body: redesigned().replace("$10.00", "$12.00") });
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("material");
  });

  it("model mode: where code sees two places, the agent proposes one, in words and with its reason, and is metered", async () => {
    site.setPage("/agent", { body: priceBody("$20.00") });
    const { userId, tracker } = await createActiveTracker(t.db, {
      decision: "Is the Pro plan getting pricier?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/agent") },
      definition: cssPriceDefinition(0.05),
    });
    await refreshTracker(t.db, tracker.id, options());
    // The redesign shows $20.00 twice: the Pro plan now, and a struck "was" line on the Team plan.
    site.setPage("/agent", {
      body: `<main><section><h2>Team</h2><p class="cost">$25.00</p><p class="was">Was $20.00</p></section><section><h2>Pro</h2><p class="cost">$20.00</p></section><script nonce="${Math.random()}">x</script></main>`,
    });
    await refreshTracker(t.db, tracker.id, options());
    const { id: sessionId } = await openEditSession(t.db, { userId, trackerId: tracker.id });

    // Rules mode: two places show it, so nothing is proposed.
    await rereadSetupPage(t.db, { userId, sessionId, config: capabilityConfig(), model: null });
    const rules = await getPageView(t.db, { userId, sessionId, which: "current", config: capabilityConfig() });
    expect(rules?.fields[0]?.proposal).toBeNull();

    // Model mode: the agent is shown the places and picks the Pro card's price.
    models.reset();
    models.addRecording({
      name: "reanchor",
      match: { schemaName: "reanchor_proposals" },
      response: {
        json: {
          proposals: [{ field: "price", place: 1, why: "The Pro plan's price; the other is Team's old price." }],
        },
      },
    });
    const reread = await rereadSetupPage(t.db, {
      userId,
      sessionId,
      config: capabilityConfig(),
      model: fixtureModel(models.url),
    });
    const asked = models.requests.find((r) => r.summary.schemaName === "reanchor_proposals");
    expect(asked?.summary.lastUser).toMatch(
      /\[0\] “Was \$20\.00”.*\n\[1\] “\$20\.00” — the price under the heading “Pro”/s,
    );
    expect(reread.said.join(" ")).toContain(
      "For price, the agent suggests the price under the heading “Pro” (“$20.00”): The Pro plan's price; the other is Team's old price.",
    );
    const view = await getPageView(t.db, { userId, sessionId, which: "current", config: capabilityConfig() });
    if (!view) throw new Error("no page view");
    expect(view.fields[0]?.proposal).toEqual({
      element: elementShowing(view.html.replace(/Was \$20\.00/, "Was"), "$20.00"),
      text: "$20.00",
      where: "the price under the heading “Pro”",
      why: "The Pro plan's price; the other is Team's old price.",
    });
    const usage = await t.db.modelUsage.findMany({ where: { userId, trackerId: tracker.id } });
    expect(usage).toEqual([expect.objectContaining({ kind: "setup", modelCalls: 1 })]);
  });

  it("on a locked tracker a re-anchored field keeps its name, so its timeline goes on under it", async () => {
    site.setPage("/keep-name", { body: priceBody("$12.00") });
    const base = cssPriceDefinition(0.05);
    const definition = {
      ...base,
      fields: base.fields.map((f) => ({ ...f, name: "solo_price" })),
      materiality: { solo_price: { kind: "numeric", relative: 0.05 } },
    };
    const { userId, tracker } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/keep-name") },
      definition,
    });
    await refreshTracker(t.db, tracker.id, options());
    site.setPage("/keep-name", {
      body: `<main><div class="col"><div class="price">$12.00</div><button>Choose Duo</button></div></main>`,
    });
    const { id: sessionId } = await openEditSession(t.db, { userId, trackerId: tracker.id });
    await rereadSetupPage(t.db, { userId, sessionId, config: capabilityConfig() });
    const view = await getPageView(t.db, { userId, sessionId, which: "current", config: capabilityConfig() });
    const pointed = await pointAtElement(t.db, {
      userId,
      sessionId,
      element: elementShowing(view?.html ?? "", "$12.00"),
      field: "solo_price",
      config: capabilityConfig(),
    });
    expect(pointed.said.join(" ")).toMatch(
      /^Now solo_price reads the price in the card with the button “Choose Duo”.* It keeps its rule\.$/,
    );
    await lockSetup(t.db, { userId, sessionId });
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).not.toBe("baseline");
    expect(await t.db.entityChange.count({ where: { trackerId: tracker.id } })).toBe(1);
  });
});
