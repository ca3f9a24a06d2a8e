import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv } from "@/server/env";
import { trackersSource } from "@/server/feed/sources/trackers-source";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { createChannel, runNotifications, type TNotifyConfig } from "@/server/notifications";
import { listTrackerSummaries, lockDefinition, replayTracker, saveDraftDefinition } from "@/server/trackers";
import { countSql } from "../bench/sql-counter";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { localNotifyConfig, startWebhookReceiver } from "../helpers/notify-receivers";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig, priceBody } from "../helpers/trackers";

/**
 * Field health (docs/field-health.md): a field that read before and reads nothing for FIELD_MISSING_AFTER runs in a
 * row puts the tracker into "needs attention" with the reason in words and ONE notification; a fix clears it and the
 * timeline goes on with no new entry for unchanged fields; the unchanged refresh stays at its two statements.
 */

let t: TTestDb;
let site: TFixtureSite;
let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
let config: TNotifyConfig;
const after = getEnv().FIELD_MISSING_AFTER;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  hook = await startWebhookReceiver();
  config = localNotifyConfig(hook.url);
});
afterAll(async () => {
  await hook?.close();
  await site?.close();
  await t?.close();
});

const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
});

const summaryOf = async (userId: string, trackerId: string) =>
  (await listTrackerSummaries(t.db, { userId })).find((s) => s.id === trackerId);

/** What the webhook receiver got for this tracker ("needs attention" notices). */
const attentionHooks = (decision: string) =>
  hook.received.filter((r) => r.body.includes("needs attention") && r.body.includes(decision));

describe("field health", () => {
  it("a broken anchor: needs attention after the configured runs, one notification, a fix clears it and the timeline goes on", async () => {
    const decision = "Is Acme's price moving? (layout)";
    site.setPage("/layout", { body: priceBody("$10.00") });
    const { userId, tracker } = await createActiveTracker(t.db, {
      decision,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/layout") },
      definition: cssPriceDefinition(0.05),
    });
    await createChannel(t.db, { userId, config, channel: { kind: "webhook", target: hook.url } });
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("baseline");
    expect(await summaryOf(userId, tracker.id)).toMatchObject({
      needsAttention: false,
      fields: { read: 1, total: 1, missing: [] },
    });

    // The redesign: the price moved out of #price (and the page says so).
    const redesigned = () =>
      `<main><h1>Our new look</h1><div class="cost">$10.00</div><script nonce="${Math.random()}">x</script></main>`;
    for (let run = 1; run <= after; run++) {
      site.setPage("/layout", { body: redesigned() });
      const result = await refreshTracker(t.db, tracker.id, options());
      expect(result.status).toBe("completed");
      const summary = await summaryOf(userId, tracker.id);
      expect(summary?.needsAttention).toBe(run >= after);
      expect(summary?.failing).toBe(false);
      expect(summary?.fields).toEqual({ read: 0, total: 1, missing: ["price"] });
      await runNotifications(t.db, { config });
    }
    const summary = await summaryOf(userId, tracker.id);
    expect(summary?.attentionReason).toBe(
      `price has read nothing for ${after} runs: \`#price\` matches nothing on the page`,
    );
    expect((await listTrackerSummaries(t.db, { userId, status: "needs_attention" })).map((s) => s.id)).toEqual([
      tracker.id,
    ]);
    // A miss is not a change: only the baseline is on the timeline.
    expect(await t.db.entityChange.count({ where: { trackerId: tracker.id } })).toBe(1);

    // Staying broken tells nobody again.
    site.setPage("/layout", { body: redesigned() });
    await refreshTracker(t.db, tracker.id, options());
    await runNotifications(t.db, { config });
    await runNotifications(t.db, { config });
    expect(attentionHooks(decision)).toHaveLength(1);
    expect(attentionHooks(decision)[0]?.body).toContain("matches nothing on the page");

    // Re-anchored by editing the definition: the state clears, the same price records nothing new.
    const fixed = cssPriceDefinition(0.05);
    (fixed.fields[0] as { extractor: { selector: string } }).extractor.selector = "div.cost";
    await saveDraftDefinition(t.db, { userId, trackerId: tracker.id, definition: fixed });
    await lockDefinition(t.db, { userId, trackerId: tracker.id });
    expect((await refreshTracker(t.db, tracker.id, options())).status).toBe("completed");
    expect(await summaryOf(userId, tracker.id)).toMatchObject({
      needsAttention: false,
      attentionReason: null,
      fields: { read: 1, total: 1, missing: [] },
    });
    const changes = await t.db.entityChange.findMany({ where: { trackerId: tracker.id } });
    expect(changes.map((c) => c.materiality)).toEqual(["baseline"]);
    await runNotifications(t.db, { config });

    // The timeline continues: a real move after the fix is recorded against the old baseline.
    site.setPage("/layout", { body: `<main><div class="cost">$12.00</div></main>` });
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("material");
    expect(await t.db.entityChange.count({ where: { trackerId: tracker.id, materiality: "baseline" } })).toBe(1);

    // Broken again after it recovered → told again, once.
    for (let run = 1; run <= after; run++) {
      site.setPage("/layout", { body: `<main><p>gone</p><script nonce="${Math.random()}">x</script></main>` });
      await refreshTracker(t.db, tracker.id, options());
      await runNotifications(t.db, { config });
    }
    expect((await summaryOf(userId, tracker.id))?.needsAttention).toBe(true);
    expect(attentionHooks(decision)).toHaveLength(2);
  });

  it("the page comes back: the state clears with no new timeline entry", async () => {
    site.setPage("/back", { body: priceBody("$5.00") });
    const { userId, tracker } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/back") },
      definition: cssPriceDefinition(0.05),
    });
    await refreshTracker(t.db, tracker.id, options());
    for (let run = 1; run <= after; run++) {
      site.setPage("/back", { body: `<main><p>Maintenance</p></main>` });
      await refreshTracker(t.db, tracker.id, options());
    }
    expect((await summaryOf(userId, tracker.id))?.needsAttention).toBe(true);
    site.setPage("/back", { body: priceBody("$5.00") });
    await refreshTracker(t.db, tracker.id, options());
    expect(await summaryOf(userId, tracker.id)).toMatchObject({ needsAttention: false, fields: { read: 1, total: 1 } });
    expect(await t.db.entityChange.count({ where: { trackerId: tracker.id } })).toBe(1);
  });

  it("render: never on a page whose price script fills: needs attention, naming why", async () => {
    const text = "Acme Pro is the plan for growing teams. ".repeat(12);
    site.setPage("/scripted", {
      body: `<main><h1>Acme Pro</h1><p>${text}</p><span id="price"></span>
        <script>document.getElementById("price").textContent = "$10.00";</script></main>`,
    });
    const { userId, tracker } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/scripted"), render: "never" },
      definition: cssPriceDefinition(0.05),
    });
    for (let run = 1; run <= after; run++) {
      expect((await refreshTracker(t.db, tracker.id, options())).status).toBe("completed");
    }
    const summary = await summaryOf(userId, tracker.id);
    expect(summary?.needsAttention).toBe(true);
    expect(summary?.attentionReason).toBe(
      `price has read nothing for ${after} runs: the page's price is filled in by script; this tracker reads pages without a browser (render: never)`,
    );
    // The feed says so in a line of its own, not as a failing fetch.
    const items = await trackersSource(t.db).fetchItems({
      userId,
      now: new Date(),
      env: undefined,
      contexts: {},
      reportError: () => {},
    });
    const mine = items.filter((i) => i.data.trackerId === tracker.id);
    expect(mine.map((i) => i.type)).toEqual(["tracker-needs-attention"]);
    expect(mine[0]?.data).toMatchObject({ reason: summary?.attentionReason });
  });

  it("an unchanged refresh stays at two statements, with and without a field that reads nothing", async () => {
    for (const [path, body] of [
      ["/floor-ok", () => priceBody("$7.00")],
      ["/floor-miss", () => `<main><p>no price here</p><script nonce="${Math.random()}">x</script></main>`],
    ] as const) {
      site.setPage(path, { body: priceBody("$7.00") });
      const { tracker } = await createActiveTracker(t.db, {
        capability: "web.scrape",
        capabilityInput: { url: site.urlFor(path) },
        definition: cssPriceDefinition(0.05),
      });
      await refreshTracker(t.db, tracker.id, options());
      site.setPage(path, { body: body() });
      await refreshTracker(t.db, tracker.id, options());
      site.setPage(path, { body: body() }); // byte-different (nonce), same document
      const counter = countSql(t.pglite);
      try {
        expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("unchanged");
        expect(counter.statements).toBeLessThanOrEqual(2);
        expect(counter.transactions).toBe(0);
      } finally {
        counter.restore();
      }
      const health = (await t.db.tracker.findUniqueOrThrow({ where: { id: tracker.id } })).fieldHealth as {
        misses: Record<string, { runs: number }>;
      };
      // The miss was counted by the unchanged run's one write (2 runs without a price: the change, then this one).
      expect(health.misses.price?.runs).toBe(path === "/floor-miss" ? 2 : undefined);
    }
  });
  it("replay treats a miss as the refresh did: a capture recorded while one field missed replays to the same entry", async () => {
    const headed = (heading: string, price: string | null) =>
      `<main><h1>${heading}</h1>${price ? `<span id="price">${price}</span>` : ""}</main>`;
    site.setPage("/replay-miss", { body: headed("Spring sale", "$10.00") });
    const base = cssPriceDefinition(0.05);
    const { userId, tracker } = await createActiveTracker(t.db, {
      decision: "Is Acme's price moving? (replay)",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/replay-miss") },
      definition: {
        ...base,
        fields: [
          ...base.fields,
          { name: "headline", type: "string", description: "Headline", extractor: { kind: "css", selector: "h1" } },
        ],
        materiality: { ...base.materiality, headline: { kind: "any_change" } },
      },
    });
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("baseline");
    // The headline changes while the price has gone from the page: the headline is recorded, the price is a miss.
    site.setPage("/replay-miss", { body: headed("Summer sale", null) });
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("material");
    // The price is back, 20 % lower: material against the last value it read.
    site.setPage("/replay-miss", { body: headed("Summer sale", "$8.00") });
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("material");

    const result = await replayTracker(
      t.db,
      { userId, trackerId: tracker.id, definition: "locked", modelBudget: 0, planOnly: false },
      {},
      { models: { filler: null, judge: null } },
    );
    const strip = (e: (typeof result.recorded)[number]) => ({ materiality: e.materiality, delta: e.delta });
    expect(result.recorded.map(strip)).toHaveLength(3);
    expect(Object.keys(result.recorded[1]?.delta ?? {})).toEqual(["headline"]);
    expect(result.replayed.map(strip)).toEqual(result.recorded.map(strip));
  });
});
