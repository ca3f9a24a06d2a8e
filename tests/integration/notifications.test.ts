import { createHmac, timingSafeEqual } from "node:crypto";
import { parseFeed } from "@rowanmanning/feed-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { createApiToken } from "@/server/api-tokens";
import type { TDb } from "@/server/db";
import { refreshTracker } from "@/server/intelligence/refresh";
import {
  countUnread,
  createChannel,
  deliverDue,
  fanOutChanges,
  listChannelDeliveries,
  listInbox,
  markInboxRead,
  noticeFailingTrackers,
  renderAtomFeed,
  revokeFeedToken,
  rotateFeedToken,
  runNotifications,
  sendTestNotice,
  type TNotifyConfig,
  unsubscribeByToken,
  updateNotificationDefaults,
} from "@/server/notifications";
import { appendChange, ensureEntity } from "@/server/timeline";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { localNotifyConfig, startSmtpReceiver, startWebhookReceiver } from "../helpers/notify-receivers";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig } from "../helpers/trackers";

/**
 * Notifications (docs/notifications.md) on PGlite with real receivers: a real refresh's material change reaches a local SMTP server and a local
 * webhook receiver once; retries back off; a channel pauses; digests and quiet hours group (injected clock);
 * another person's change never reaches these channels; rules mode (no model) reads the same without slot text.
 */

let t: TTestDb;
let site: TFixtureSite;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
let config: TNotifyConfig;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  smtp = await startSmtpReceiver();
  hook = await startWebhookReceiver();
  config = localNotifyConfig(hook.url, {
    smtp: { url: smtp.url },
    from: "Bellwether <bell@example.com>",
    failingAfter: 2,
  });
});
afterAll(async () => {
  await hook?.close();
  await smtp?.close();
  await site?.close();
  await t?.close();
});

const T0 = Date.parse("2026-03-02T10:00:00.000Z"); // a Monday, 10:00 UTC
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

let seq = 0;
async function user(db: TDb, name: string): Promise<string> {
  const u = await db.user.create({ data: { name, email: `${name.toLowerCase()}${++seq}@example.com` } });
  return u.id;
}

/** A tracker with a real material change recorded through refreshTracker ($10.00 → $8.00, rules mode). */
async function materialChange(userId: string, decision: string) {
  const path = `/p${++seq}`;
  site.setPage(path, { body: `<main><span id="price">$10.00</span></main>` });
  const { tracker } = await createActiveTracker(t.db, {
    userId,
    decision,
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition: cssPriceDefinition(0.05),
  });
  const options = {
    trigger: "manual" as const,
    models: { filler: null, judge: null },
    capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
  };
  expect((await refreshTracker(t.db, tracker.id, options)).outcome).toBe("baseline");
  site.setPage(path, { body: `<main><span id="price">$8.00</span></main>` });
  expect((await refreshTracker(t.db, tracker.id, options)).outcome).toBe("material");
  const change = await t.db.entityChange.findFirstOrThrow({
    where: { trackerId: tracker.id, materiality: "material" },
  });
  return { trackerId: tracker.id, changeId: change.id };
}

/** A notable change appended through the timeline (the same outbox write as the refresh's). */
async function notableChange(userId: string, decision: string, capturedAt: Date) {
  const tracker = await t.db.tracker.create({
    data: { userId, decision, capability: "web.scrape", capabilityInput: { url: "https://e.com" }, status: "active" },
  });
  const entity = await ensureEntity(t.db, { trackerId: tracker.id, entityKey: `k${++seq}` });
  const run = await t.db.refreshRun.create({ data: { trackerId: tracker.id, trigger: "manual" } });
  const input = {
    entityId: entity.id,
    trackerId: tracker.id,
    runId: run.id,
    capturedAt,
    delta: { stock: { from: "in stock", to: "low stock" } },
    materiality: "notable" as const,
    decisions: { stock: { verdict: "notable" as const, decidedBy: "code" as const, reason: "stock changed" } },
    definitionVersion: 1,
  };
  const change = await t.db.$transaction((tx) => appendChange(tx, input));
  await t.db.$transaction((tx) => appendChange(tx, input)); // a redelivered append: no second notice
  return { trackerId: tracker.id, changeId: change.id };
}

function verify(secret: string, headers: Record<string, unknown>, body: string): boolean {
  const timestamp = String(headers["x-bellwether-timestamp"]);
  const given = Buffer.from(String(headers["x-bellwether-signature"]));
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe("notifications", () => {
  it("a material change reaches email and a signed webhook exactly once, with from → to, reason and link", async () => {
    const ann = await user(t.db, "Ann");
    const email = await createChannel(t.db, {
      userId: ann,
      config,
      channel: { kind: "email", target: "ann@example.com", name: "" },
    });
    const webhook = await createChannel(t.db, { userId: ann, config, channel: { kind: "webhook", target: hook.url } });
    expect(webhook.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(email.secret).toBeNull();

    const { trackerId, changeId } = await materialChange(ann, "Should we match Rival's price?");
    expect(await t.db.changeOutbox.count({ where: { changeId } })).toBe(1);

    const before = { mail: smtp.messages.length, hooks: hook.received.length };
    const first = await runNotifications(t.db, { config, now: at(0) });
    expect(first?.delivery).toMatchObject({ sent: 2, failed: 0 });
    // A second pass (a redelivered outbox, a second worker tick) sends nothing more.
    await runNotifications(t.db, { config, now: at(1) });
    expect(await fanOutChanges(t.db, { config, now: at(1) })).toBe(0);

    const mails = smtp.messages.slice(before.mail);
    expect(mails).toHaveLength(1);
    const mail = mails[0];
    expect(mail?.to && "text" in mail.to ? mail.to.text : "").toBe("ann@example.com");
    expect(mail?.from?.text).toContain("bell@example.com");
    expect(mail?.subject).toContain("Material change: Should we match Rival's price?");
    expect(mail?.text).toContain("Price: $10.00 → $8.00 (−20%)");
    expect(mail?.text).toContain(`https://bell.example.com/trackers/${trackerId}#change-${changeId}`);
    expect(mail?.text).toContain("Rule:");
    expect(mail?.text).not.toContain("Why it matters"); // rules mode: no slot text, same message otherwise
    expect(mail?.html).toContain("Should we match Rival&apos;s price?");
    expect(JSON.stringify(mail?.headers.get("list"))).toContain(
      "https://bell.example.com/api/notifications/unsubscribe/",
    );
    // One-click unsubscribe (RFC 8058): the mail client may POST to that URL.
    expect(mail?.headerLines.find((h) => h.key === "list-unsubscribe-post")?.line).toBe(
      "List-Unsubscribe-Post: List-Unsubscribe=One-Click",
    );

    const hooks = hook.received.slice(before.hooks);
    expect(hooks).toHaveLength(1);
    const received = hooks[0];
    if (!received || !webhook.secret) throw new Error("no webhook");
    expect(verify(webhook.secret, received.headers, received.body)).toBe(true);
    expect(verify("0".repeat(64), received.headers, received.body)).toBe(false);
    const payload = JSON.parse(received.body);
    expect(payload).toMatchObject({ type: "change", changes: [{ changeId, trackerId, materiality: "material" }] });
    expect(payload.changes[0].fields[0]).toMatchObject({ label: "Price", change: "$10.00 → $8.00 (−20%)" });

    // The inbox has it, unread, linking to the timeline entry; reading clears the count.
    const inbox = await listInbox(t.db, { userId: ann, limit: 10 });
    expect(inbox[0]).toMatchObject({ href: `/trackers/${trackerId}#change-${changeId}`, read: false });
    expect((await countUnread(t.db, { userId: ann })).unread).toBe(1);
    expect((await markInboxRead(t.db, { userId: ann })).unread).toBe(0);
  });

  it("a receiver answering 500 twice then 200 gets one accepted delivery after backed-off retries", async () => {
    const bo = await user(t.db, "Bo");
    const { secret } = await createChannel(t.db, {
      userId: bo,
      config,
      channel: { kind: "webhook", target: hook.url },
    });
    const channel = await t.db.notificationChannel.findFirstOrThrow({ where: { userId: bo } });
    const start = hook.received.length;
    hook.answer((n) => (n - start < 2 ? 500 : 200));
    try {
      await materialChange(bo, "Retry me");
      await runNotifications(t.db, { config, now: at(0) });
      const delivery = await t.db.notificationDelivery.findFirstOrThrow({ where: { channelId: channel.id } });
      expect(delivery).toMatchObject({ status: "pending", attempts: 1 });
      // Not due again until its backoff has passed.
      expect((await deliverDue(t.db, { config, now: at(0.1) })).claimed).toBe(0);
      const second = delivery.dueAt;
      expect(second.getTime()).toBeGreaterThan(at(0).getTime());
      await deliverDue(t.db, { config, now: second });
      const after2 = await t.db.notificationDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
      expect(after2.dueAt.getTime() - second.getTime()).toBeGreaterThan(second.getTime() - at(0).getTime()); // grows
      await deliverDue(t.db, { config, now: after2.dueAt });
    } finally {
      hook.answer(() => 200);
    }
    const mine = hook.received.slice(start);
    expect(mine.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(new Set(mine.map((r) => r.headers["x-bellwether-delivery"])).size).toBe(1); // the same delivery id
    expect(mine.every((r) => verify(secret ?? "", r.headers, r.body))).toBe(true);
    const [log] = await listChannelDeliveries(t.db, { userId: bo, channelId: channel.id });
    expect(log).toMatchObject({ status: "sent", attempts: 3 });
    expect(log?.log.map((l) => l.ok)).toEqual([false, false, true]);
    expect(log?.log[0]?.error).toContain("500");
  });

  it("a channel that keeps failing pauses and the person is told in the app; Send test reports the error", async () => {
    const cy = await user(t.db, "Cy");
    await createChannel(t.db, { userId: cy, config, channel: { kind: "slack", target: `${hook.url}/slack` } });
    const channel = await t.db.notificationChannel.findFirstOrThrow({ where: { userId: cy } });
    hook.answer(() => 500);
    try {
      const first = await sendTestNotice(t.db, { userId: cy, channelId: channel.id, config, now: at(0) });
      expect(first).toMatchObject({ lastStatus: "failed", paused: false, consecutiveFailures: 1 });
      expect(first.lastError).toContain("500");
      // (Seconds apart: the first test's retry is not due yet, so each press is one attempt.)
      await sendTestNotice(t.db, { userId: cy, channelId: channel.id, config, now: at(0.1) });
      const third = await sendTestNotice(t.db, { userId: cy, channelId: channel.id, config, now: at(0.2) });
      expect(third).toMatchObject({ paused: true, consecutiveFailures: 3 });
    } finally {
      hook.answer(() => 200);
    }
    const inbox = await listInbox(t.db, { userId: cy, limit: 10 });
    expect(inbox.map((i) => i.title)).toContain(`Notifications to “${channel.name}” are paused`);
    // Paused: nothing more is claimed for it.
    await materialChange(cy, "Quiet now");
    const pass = await runNotifications(t.db, { config, now: at(3) });
    expect(pass?.delivery.claimed).toBe(0);
    // The Slack format: {text}.
    const slackBody = hook.received.find((r) => r.path.endsWith("/slack"))?.body ?? "{}";
    expect(Object.keys(JSON.parse(slackBody))).toEqual(["text"]);
  });

  it("notable changes of a day go out as one digest at the digest hour; quiet hours hold material ones into one", async () => {
    const di = await user(t.db, "Di");
    await t.db.userSettings.create({ data: { userId: di, timezone: "Europe/Berlin" } }); // 10:00 UTC = 11:00 local
    await updateNotificationDefaults(t.db, {
      userId: di,
      defaults: {
        material: "immediate",
        notable: "digest",
        failing: true,
        quietStartMinute: 11 * 60,
        quietEndMinute: 13 * 60,
        digestHour: 18,
      },
    });
    await createChannel(t.db, { userId: di, config, channel: { kind: "email", target: "di@example.com" } });
    const before = smtp.messages.length;
    for (const name of ["A", "B", "C"]) await notableChange(di, `Notable ${name}`, at(0));
    await materialChange(di, "Material one");
    await materialChange(di, "Material two");
    await runNotifications(t.db, { config, now: at(0) });
    expect(smtp.messages.length).toBe(before); // quiet hours, and the digest is for 18:00
    expect(await t.db.notificationDelivery.count({ where: { userId: di } })).toBe(5); // one per change, no doubles

    // 13:00 Berlin = 12:00 UTC: the two held material changes as one message.
    await runNotifications(t.db, { config, now: at(120) });
    const held = smtp.messages.slice(before);
    expect(held).toHaveLength(1);
    expect(held[0]?.subject).toBe("2 changes on 2 trackers");
    expect(held[0]?.text).toContain("Material one");
    expect(held[0]?.text).toContain("Material two");

    // 18:00 Berlin = 17:00 UTC: one digest for the three notable changes.
    await runNotifications(t.db, { config, now: at(7 * 60 - 1) });
    expect(smtp.messages.length).toBe(before + 1);
    await runNotifications(t.db, { config, now: at(7 * 60) });
    const digest = smtp.messages.slice(before + 1);
    expect(digest).toHaveLength(1);
    expect(digest[0]?.subject).toBe("3 changes on 3 trackers");
    for (const name of ["A", "B", "C"]) expect(digest[0]?.text).toContain(`Notable ${name}`);
    expect(digest[0]?.text).toContain("Stock: in stock → low stock");
  });

  it("another person's change never reaches this person's channels or inbox", async () => {
    const eve = await user(t.db, "Eve");
    const fay = await user(t.db, "Fay");
    await createChannel(t.db, { userId: eve, config, channel: { kind: "webhook", target: `${hook.url}/eve` } });
    await createChannel(t.db, { userId: fay, config, channel: { kind: "webhook", target: `${hook.url}/fay` } });
    const { changeId } = await materialChange(fay, "Fay's decision");
    await runNotifications(t.db, { config, now: at(0) });
    const eveHooks = hook.received.filter((r) => r.path.endsWith("/eve"));
    const fayHooks = hook.received.filter((r) => r.path.endsWith("/fay"));
    expect(eveHooks).toHaveLength(0);
    expect(fayHooks).toHaveLength(1);
    expect(await t.db.notificationDelivery.count({ where: { userId: eve } })).toBe(0);
    expect(await listInbox(t.db, { userId: eve, limit: 10 })).toEqual([]);
    expect((await listInbox(t.db, { userId: fay, limit: 10 }))[0]?.href).toContain(changeId);
    const eveChannel = await t.db.notificationChannel.findFirstOrThrow({ where: { userId: eve } });
    await expect(sendTestNotice(t.db, { userId: fay, channelId: eveChannel.id, config })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("a failing tracker is told once, and once when it recovers", async () => {
    const gus = await user(t.db, "Gus");
    const tracker = await t.db.tracker.create({
      data: {
        userId: gus,
        decision: "Flaky source",
        capability: "web.scrape",
        capabilityInput: { url: "https://e.com" },
        status: "active",
        consecutiveFailures: 2,
        lastError: "The page answered 503.",
      },
    });
    expect(await noticeFailingTrackers(t.db, { config, now: at(0) })).toBeGreaterThanOrEqual(1);
    expect(await noticeFailingTrackers(t.db, { config, now: at(1) })).toBe(0);
    await t.db.tracker.update({ where: { id: tracker.id }, data: { consecutiveFailures: 0, lastError: null } });
    await noticeFailingTrackers(t.db, { config, now: at(2) });
    await noticeFailingTrackers(t.db, { config, now: at(3) });
    const titles = (await listInbox(t.db, { userId: gus, limit: 10 })).map((i) => i.title);
    expect(titles.sort()).toEqual(["Tracker failing: Flaky source", "Tracker recovered: Flaky source"]);
  });

  it("refuses a webhook to a private address unless allowed", async () => {
    const hal = await user(t.db, "Hal");
    await expect(
      createChannel(t.db, { userId: hal, config, channel: { kind: "webhook", target: "http://10.1.2.3/hook" } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("Cannot send to") });
    expect(await t.db.notificationChannel.count({ where: { userId: hal } })).toBe(0);
  });

  it("the Atom feed (per person and per tracker) reads back with a feed parser; a revoked or rotated URL is gone", async () => {
    const ivy = await user(t.db, "Ivy");
    const one = await materialChange(ivy, "Feed one");
    await materialChange(ivy, "Feed <two> & more");
    const { url } = await rotateFeedToken(t.db, { userId: ivy, appUrl: config.appUrl });
    const token = decodeURIComponent(url.split("/").pop() ?? "");
    expect(url).toBe(`https://bell.example.com/api/notifications/feed/${encodeURIComponent(token)}`);
    const xml = await renderAtomFeed(t.db, { token, appUrl: config.appUrl });
    const feed = parseFeed(xml ?? "");
    expect(feed.meta.type).toBe("atom");
    expect(feed.items).toHaveLength(2);
    expect(feed.items.map((i) => i.title)).toContain("Feed <two> & more: Price $10.00 → $8.00 (−20%)");
    expect(feed.items.map((i) => i.url)).toContain(
      `https://bell.example.com/trackers/${one.trackerId}#change-${one.changeId}`,
    );

    const perTracker = await rotateFeedToken(t.db, { userId: ivy, trackerId: one.trackerId, appUrl: config.appUrl });
    const trackerToken = decodeURIComponent(perTracker.url.split("/").pop() ?? "");
    const trackerFeed = parseFeed((await renderAtomFeed(t.db, { token: trackerToken, appUrl: config.appUrl })) ?? "");
    expect(trackerFeed.items).toHaveLength(1);

    // Another person cannot make a feed of Ivy's tracker.
    const jon = await user(t.db, "Jon");
    await expect(
      rotateFeedToken(t.db, { userId: jon, trackerId: one.trackerId, appUrl: config.appUrl }),
    ).rejects.toMatchObject({
      code: "NOT_FOUND",
    });

    const rotated = await rotateFeedToken(t.db, { userId: ivy, appUrl: config.appUrl });
    expect(await renderAtomFeed(t.db, { token, appUrl: config.appUrl })).toBeNull();
    await revokeFeedToken(t.db, { userId: ivy });
    expect(
      await renderAtomFeed(t.db, {
        token: decodeURIComponent(rotated.url.split("/").pop() ?? ""),
        appUrl: config.appUrl,
      }),
    ).toBeNull();
    expect(await renderAtomFeed(t.db, { token: "nope", appUrl: config.appUrl })).toBeNull();
  });

  it("the email unsubscribe link pauses that channel only", async () => {
    const kim = await user(t.db, "Kim");
    await createChannel(t.db, { userId: kim, config, channel: { kind: "email", target: "kim@example.com" } });
    const row = await t.db.notificationChannel.findFirstOrThrow({ where: { userId: kim } });
    expect(await unsubscribeByToken(t.db, { token: "wrong" })).toBe(false);
    expect(await unsubscribeByToken(t.db, { token: row.unsubscribeToken })).toBe(true);
    const after = await t.db.notificationChannel.findUniqueOrThrow({ where: { id: row.id } });
    expect(after.pausedAt).not.toBeNull();
  });

  it("per-tracker routing over REST: null follows the default, 'off' sends nothing for that tracker", async () => {
    const lee = await user(t.db, "Lee");
    const { token } = await createApiToken(t.db, { userId: lee, name: "routing" });
    await createChannel(t.db, { userId: lee, config, channel: { kind: "webhook", target: `${hook.url}/lee` } });
    const tracker = await t.db.tracker.create({
      data: { userId: lee, decision: "Muted", capability: "web.scrape", capabilityInput: { url: "https://e.com" } },
    });
    const rest = async (method: string, body?: unknown) => {
      const response = await handleRestRequest(
        new Request(`http://app/api/v1/trackers/${tracker.id}/notifications`, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          ...(body ? { body: JSON.stringify(body) } : {}),
        }),
        { db: t.db },
      );
      return { status: response.status, body: await response.json() };
    };
    expect((await rest("GET")).body).toEqual({
      own: { material: null, notable: null, failing: null },
      effective: { material: "immediate", notable: "digest", failing: true },
    });
    const put = await rest("PUT", { material: "off", notable: null, failing: false });
    expect(put.status).toBe(200);
    expect(put.body.effective).toEqual({ material: "off", notable: "digest", failing: false });
    expect((await rest("PUT", { material: "sometimes", notable: null, failing: null })).status).toBe(400);

    const { muted } = await (async () => {
      const entity = await ensureEntity(t.db, { trackerId: tracker.id, entityKey: "k" });
      const run = await t.db.refreshRun.create({ data: { trackerId: tracker.id, trigger: "manual" } });
      const change = await t.db.$transaction((tx) =>
        appendChange(tx, {
          entityId: entity.id,
          trackerId: tracker.id,
          runId: run.id,
          capturedAt: at(0),
          delta: { price: { from: 1, to: 2 } },
          materiality: "material",
          decisions: {},
          definitionVersion: 1,
        }),
      );
      return { muted: change.id };
    })();
    await runNotifications(t.db, { config, now: at(0) });
    expect(await t.db.notificationDelivery.count({ where: { changeId: muted } })).toBe(0);
    expect(hook.received.filter((r) => r.path.endsWith("/lee"))).toHaveLength(0);
  });
});
