import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker } from "@/server/intelligence/refresh";
import {
  createChannel,
  listChannels,
  runNotifications,
  sendTestNotice,
  type TNotifyConfig,
} from "@/server/notifications";
import { ntfyBody } from "@/server/notifications/channel-kinds/ntfy";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { localNotifyConfig, startWebhookReceiver } from "../helpers/notify-receivers";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig } from "../helpers/trackers";

/**
 * The ntfy channel, added through the channel descriptors alone (docs/notifications.md), against a real local
 * receiver standing in for an ntfy server: a real material change is published once as ntfy JSON to the server's
 * root (topic, title, message, click to the timeline entry, the delivery id as a tag — the same on a retry); the
 * topic is checked when the channel is made, and Settings shows only the start of it.
 */

let t: TTestDb;
let site: TFixtureSite;
let ntfy: Awaited<ReturnType<typeof startWebhookReceiver>>;
let config: TNotifyConfig;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  ntfy = await startWebhookReceiver();
  config = localNotifyConfig(ntfy.url, { pauseAfterFailures: 5 });
});
afterAll(async () => {
  await ntfy?.close();
  await site?.close();
  await t?.close();
});

describe("the ntfy channel", () => {
  it("publishes a material change once as ntfy JSON, with the same delivery tag on a retry", async () => {
    const path = "/ntfy-price";
    site.setPage(path, { body: `<main><span id="price">$10.00</span></main>` });
    const { userId, tracker } = await createActiveTracker(t.db, {
      decision: "Is Acme cutting prices? (ntfy)",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(path) },
      definition: cssPriceDefinition(0.05),
    });
    const { channel } = await createChannel(t.db, {
      userId,
      config,
      channel: { kind: "ntfy", target: `${ntfy.url}/acme-alerts_42` },
    });
    expect(channel).toMatchObject({ kind: "ntfy", name: `ntfy · ${new URL(ntfy.url).host}`, hasSecret: false });
    expect((await listChannels(t.db, { userId }))[0]?.target).toBe(`${new URL(ntfy.url).origin}/hook/acme-a…`);

    const options = {
      trigger: "manual" as const,
      models: { filler: null, judge: null },
      capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
    };
    await refreshTracker(t.db, tracker.id, options);
    site.setPage(path, { body: `<main><span id="price">$8.00</span></main>` });
    expect((await refreshTracker(t.db, tracker.id, options)).outcome).toBe("material");
    const change = await t.db.entityChange.findFirstOrThrow({
      where: { trackerId: tracker.id, materiality: "material" },
    });

    ntfy.answer((n) => (n === 0 ? 502 : 200)); // the first publish fails, the retry lands
    try {
      await runNotifications(t.db, { config });
      await runNotifications(t.db, { config, now: new Date(Date.now() + 10 * 60_000) });
    } finally {
      ntfy.answer(() => 200);
    }
    const mine = ntfy.received.filter((r) => r.body.includes("Is Acme cutting prices? (ntfy)"));
    expect(mine.map((r) => r.status)).toEqual([502, 200]);
    expect(mine.every((r) => r.path === "/hook/" && r.headers["content-type"] === "application/json")).toBe(true);
    const body = JSON.parse(mine[1]?.body ?? "{}");
    expect(body).toMatchObject({
      topic: "acme-alerts_42",
      title: expect.stringContaining("Is Acme cutting prices? (ntfy)"),
      message: expect.stringContaining("Price: $10.00 → $8.00 (−20%)"),
      click: `https://bell.example.com/trackers/${tracker.id}#change-${change.id}`,
    });
    expect(body.tags[0]).toBe("bell");
    expect(body.tags[1]).toMatch(/^delivery-/);
    expect(JSON.parse(mine[0]?.body ?? "{}").tags).toEqual(body.tags);
    // Once: another pass sends nothing more.
    await runNotifications(t.db, { config, now: new Date(Date.now() + 20 * 60_000) });
    expect(ntfy.received.filter((r) => r.body.includes("Is Acme cutting prices? (ntfy)"))).toHaveLength(2);
    // Send test goes the same way.
    const tested = await sendTestNotice(t.db, { userId, channelId: channel.id, config });
    expect(tested.lastStatus).toBe("sent");
    expect(JSON.parse(ntfy.received.at(-1)?.body ?? "{}")).toMatchObject({
      title: "Test notification from Bellwether",
    });
  });

  it("a protected topic: the access token in the URL is sent as a header, never shown or fetched with", async () => {
    const userId = (await t.db.user.create({ data: { name: "Tk", email: "tk@example.com" } })).id;
    const host = new URL(ntfy.url);
    const target = `${host.protocol}//:tk_Secret123@${host.host}/hook/private-alerts`;
    const { channel } = await createChannel(t.db, { userId, config, channel: { kind: "ntfy", target } });
    expect(channel.name).toBe(`ntfy · ${host.host}`);
    const shown = JSON.stringify(await listChannels(t.db, { userId }));
    expect(shown).not.toContain("tk_Secret123");
    expect(shown).toContain(`${host.origin}/hook/privat…`);
    expect((await sendTestNotice(t.db, { userId, channelId: channel.id, config })).lastStatus).toBe("sent");
    const got = ntfy.received.at(-1);
    expect(got?.headers.authorization).toBe("Bearer tk_Secret123");
    expect(got?.path).toBe("/hook/");
    expect(JSON.parse(got?.body ?? "{}").topic).toBe("private-alerts");

    const password = `${host.protocol}//alice:p%40ss@${host.host}/hook/team`;
    const basic = await createChannel(t.db, { userId, config, channel: { kind: "ntfy", target: password } });
    await sendTestNotice(t.db, { userId, channelId: basic.channel.id, config });
    expect(ntfy.received.at(-1)?.headers.authorization).toBe(`Basic ${Buffer.from("alice:p@ss").toString("base64")}`);
    expect(JSON.stringify(await listChannels(t.db, { userId }))).not.toContain("p%40ss");
  });

  it("refuses a URL without a topic, and a private address, naming why; nothing is stored", async () => {
    const userId = (await t.db.user.create({ data: { name: "Nt", email: "nt@example.com" } })).id;
    await expect(
      createChannel(t.db, { userId, config, channel: { kind: "ntfy", target: "https://ntfy.sh/acme alerts!" } }),
    ).rejects.toThrow(/End the URL with the topic/);
    const closed = { ...config, fetch: localCapabilityConfig([], { timeoutMs: 3000 }).fetch };
    await expect(
      createChannel(t.db, { userId, config: closed, channel: { kind: "ntfy", target: `${ntfy.url}/acme` } }),
    ).rejects.toThrow(/Cannot send to/);
    expect(await listChannels(t.db, { userId })).toEqual([]);
  });

  it("cuts a long message to ntfy's limit and keeps a self-hosted base path", () => {
    const body = JSON.parse(
      ntfyBody("https://push.example.com/ntfy/team-x", "d1", {
        subject: "Übersicht: 3 Änderungen",
        text: "ö".repeat(5_000),
        url: null,
        type: "notice",
        changes: [],
      } as never),
    );
    expect(body.topic).toBe("team-x");
    expect(body.title).toBe("Übersicht: 3 Änderungen");
    expect(Buffer.byteLength(body.message)).toBeLessThanOrEqual(4_000);
    expect(body.message.endsWith("…")).toBe(true);
    expect(body.click).toBeUndefined();
  });
});
