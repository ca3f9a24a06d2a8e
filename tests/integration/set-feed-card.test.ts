import { parseFeed } from "@rowanmanning/feed-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateFeedSpec } from "@/contracts/feed-catalog";
import { getFeed } from "@/server/feed/get-feed";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import {
  createChannel,
  listInbox,
  renderAtomFeed,
  rotateFeedToken,
  runNotifications,
  type TNotifyConfig,
} from "@/server/notifications";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { feedFixture, feedSetDefinition, RSS } from "../helpers/feed-set";
import { isSignedBy, localNotifyConfig, startSmtpReceiver, startWebhookReceiver } from "../helpers/notify-receivers";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * A set tracker read as one thing everywhere (docs/sets.md, docs/feed.md, docs/notifications.md): a real feed watched
 * as a set, refreshed over a changing changelog, gives ONE feed card whose text is the roll-up's headline ("2 new
 * entries, 1 gone, 1 changed; …") with the members named and linked to their pages, earlier roll-ups folded by their
 * headline; the Atom feed titles the entry by the headline; email and a signed webhook, sent to real local receivers,
 * carry the headline and the names — never the roll-up's raw lines.
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
  config = localNotifyConfig(hook.url, { smtp: { url: smtp.url }, from: "Bellwether <bell@example.com>" });
});
afterAll(async () => {
  await hook?.close();
  await smtp?.close();
  await site?.close();
  await t?.close();
});

const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
});

/** One more changelog item, written like the fixture's own. */
const item = (slug: string, title: string) => `
    <item>
      <title>${title}</title>
      <link>/changelog/${slug}</link>
      <guid isPermaLink="false">lumen-changelog-${slug}</guid>
      <pubDate>Mon, 07 Dec 2026 09:00:00 +0000</pubDate>
      <description><![CDATA[<p>${title}.</p>]]></description>
    </item>`;
const withItems = (xml: string, ...items: string[]) =>
  xml.replace(/(<generator>[^<]*<\/generator>)/, `$1${items.join("")}`);

const AUDIT = item("2026-11-20-audit-export", "Audit log export");
const ROLLBACKS = item("2026-12-06-rollbacks", "Rollbacks in one click");
const DECISION = "What did the rival ship this month?";
const PATH = "/sets/card-changelog.rss";

describe("a set tracker's feed card, notice and Atom entry", () => {
  let trackerId = "";
  let userId = "";
  let secret = "";

  it("refreshes over a changing feed: baseline, one new entry, then two new, one gone, one edited", async () => {
    site.setPage(PATH, { body: feedFixture("changelog.rss.xml"), contentType: RSS });
    const created = await createActiveTracker(t.db, {
      capability: "feed.items",
      capabilityInput: { url: site.urlFor(PATH) },
      // Gone after one read without it, so one refresh shows new, changed and gone together.
      definition: feedSetDefinition({ missingAfter: 1 }),
      decision: DECISION,
    });
    trackerId = created.tracker.id;
    userId = created.userId;
    await createChannel(t.db, { userId, config, channel: { kind: "email", target: "sets@example.com" } });
    const webhook = await createChannel(t.db, { userId, config, channel: { kind: "webhook", target: hook.url } });
    secret = webhook.secret ?? "";

    expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("baseline");
    site.setPage(PATH, { body: withItems(feedFixture("changelog.rss.xml"), AUDIT), contentType: RSS });
    expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("material");
    site.setPage(PATH, { body: withItems(feedFixture("changelog-v2.rss.xml"), AUDIT, ROLLBACKS), contentType: RSS });
    expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("material");
    const rollUps = await t.db.entityChange.findMany({ where: { trackerId }, orderBy: { capturedAt: "asc" } });
    expect(rollUps.map((r) => r.materiality)).toEqual(["baseline", "material", "material"]);
  });

  it("the feed has exactly one card for it: the headline, the members named and linked, the earlier roll-up folded", async () => {
    const feed = await getFeed(t.db, userId, { enhance: false });
    const cards = feed.items.filter((i) => i.data.trackerId === trackerId);
    expect(cards).toHaveLength(1);
    const card = cards[0];
    if (!card?.ui) throw new Error("the set's card has no UI");
    expect(validateFeedSpec(card.ui)).toMatchObject({ ok: true });
    const props = Object.values(card.ui.elements).map((e) => ({ type: e.type, props: e.props }));
    const headline = props.find((p) => p.type === "Text")?.props.text;
    expect(headline).toMatch(
      /^2 new entries, 1 gone, 1 changed; Three new edge regions: Johannesburg, Jakarta and Querétaro: title was “Two new edge regions: Johannesburg and/,
    );
    const list = props.find((p) => p.type === "MemberList")?.props as {
      items: { kind: string; name: string; href: string; detail: string | null }[];
      more: number | null;
    };
    const member = (slug: string) => `/trackers/${trackerId}/members/lumen-changelog-${slug}`;
    expect(list.items.map((m) => [m.kind, m.name, m.href])).toEqual([
      // Each kind by the member's key (material first).
      ["new", "Rollbacks in one click", member("2026-12-06-rollbacks")],
      ["new", "Comments on preview deployments", member("2026-12-08-preview-comments")],
      ["changed", "Three new edge regions: Johannesburg, Jakarta and Querétaro", member("2026-11-05-edge-regions")],
      ["gone", "Deprecation: the v1 Deployments API & what to use instead", member("2026-10-22-deprecate-v1-api")],
    ]);
    expect(list.more).toBeNull();
    // Not the roll-up's raw lines.
    expect(props.filter((p) => p.type === "ChangeRow")).toEqual([]);
    expect(JSON.stringify(card.ui)).not.toMatch(/Appeared|Disappeared/);
    // The earlier roll-up, folded by its own headline.
    const earlier = props.find((p) => p.type === "Earlier")?.props as { total: number; entries: { text: string }[] };
    expect(earlier.total).toBe(1);
    expect(earlier.entries.map((e) => e.text)).toEqual(["1 new entry"]);
    // What the model reads: the headline and the names.
    expect(card.data.set).toMatchObject({ headline, counts: { new: 2, back: 0, changed: 1, gone: 1 }, more: 0 });
  });

  it("the Atom feed titles the set's entry by its headline and lists the members", async () => {
    const { url } = await rotateFeedToken(t.db, { userId, appUrl: config.appUrl });
    const xml = await renderAtomFeed(t.db, {
      token: decodeURIComponent(url.split("/").pop() ?? ""),
      appUrl: config.appUrl,
    });
    const feed = parseFeed(xml ?? "");
    const titles = feed.items.map((i) => i.title);
    expect(titles).toContain(`${DECISION}: 1 new entry`);
    const latest = feed.items.find((i) => i.title?.includes("2 new entries"));
    expect(latest?.title).toMatch(/^What did the rival ship this month\?: 2 new entries, 1 gone, 1 changed; /);
    const body = latest?.description ?? latest?.content ?? "";
    expect(body).toContain("New: Rollbacks in one click");
    expect(body).toContain(
      `https://bell.example.com/trackers/${trackerId}/members/lumen-changelog-2026-12-08-preview-comments`,
    );
    expect(body).toContain("Gone: Deprecation: the v1 Deployments API & what to use instead");
  });

  it("email and a signed webhook, on real local receivers, carry the headline and the names", async () => {
    const before = { mail: smtp.messages.length, hooks: hook.received.length };
    const pass = await runNotifications(t.db, { config, now: new Date() });
    expect(pass?.delivery).toMatchObject({ sent: 4, failed: 0 });
    const mails = smtp.messages.slice(before.mail);
    const mail = mails.find((m) => m.subject?.includes("2 new entries"));
    expect(mails.map((m) => m.subject)).toContain(`Material change: ${DECISION} — 1 new entry`);
    expect(mail?.subject).toMatch(
      /^Material change: What did the rival ship this month\? — 2 new entries, 1 gone, 1 changed; /,
    );
    expect(mail?.text).toContain("New: Comments on preview deployments");
    expect(mail?.text).toContain(
      "Changed: Three new edge regions: Johannesburg, Jakarta and Querétaro — title was “Two new edge",
    );
    expect(mail?.text).toContain(
      `https://bell.example.com/trackers/${trackerId}/members/lumen-changelog-2026-10-22-deprecate-v1-api`,
    );
    expect(mail?.text).not.toMatch(/Appeared|Disappeared/);

    const received = hook.received.slice(before.hooks);
    expect(received.every((r) => isSignedBy(secret, r))).toBe(true);
    const hooks = received.map((r) => JSON.parse(r.body));
    const payload = hooks.find((p) => p.subject.includes("2 new entries"));
    expect(payload.text).toContain("New: Rollbacks in one click");
    expect(payload.changes[0].set).toMatchObject({
      headline: expect.stringMatching(/^2 new entries, 1 gone, 1 changed; /),
      more: 0,
      membersUrl: `https://bell.example.com/trackers/${trackerId}#members`,
    });
    expect(payload.changes[0].set.members.map((m: { kind: string; name: string }) => [m.kind, m.name])).toEqual([
      ["new", "Rollbacks in one click"],
      ["new", "Comments on preview deployments"],
      ["changed", "Three new edge regions: Johannesburg, Jakarta and Querétaro"],
      ["gone", "Deprecation: the v1 Deployments API & what to use instead"],
    ]);
    // The inbox item lists the members too.
    const inbox = await listInbox(t.db, { userId, limit: 10 });
    expect(inbox.map((i) => i.body).join("\n")).toContain("Gone: Deprecation: the v1 Deployments API");
  });
});
