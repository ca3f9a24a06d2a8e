import { type BrowserContext, expect, type Page, test } from "@playwright/test";
import { cssPriceDefinition } from "../fixtures/price-definition";
import { feedFixture, feedSetDefinition, RSS } from "../helpers/feed-set";
import { site } from "./fixtures";
import { OWNER_STATE } from "./owner";
import { E2E_URLS } from "./ports";
import { SENTINELS } from "./sentinels";

/**
 * The signed-in pages read without JavaScript: each is opened in a browser with scripts off (the owner's session)
 * and shows what a person with JavaScript sees once it has loaded — no loading skeleton, no "Loading…" placeholder.
 * A loading.tsx would leave its skeleton on screen (the page's content is streamed hidden behind it, and only a
 * script reveals it); a client query not prefetched by the page, or one gated on an effect, renders its placeholder
 * in the server's HTML.
 */

const shop = (price: string) => `<!doctype html><html><body><main><p id="price">${price}</p></main></body></html>`;

type TSeed = {
  tag: number;
  decision: string;
  trackerId: string;
  setId: string;
  memberKey: string;
  channelName: string;
  tokenName: string;
  timezone: string;
  defaults: { material: string; notable: string; digestHour: number };
};
let seed: TSeed;

/** Made with JavaScript on, through the API and tRPC, as people and integrations make it. */
test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({
    baseURL: E2E_URLS.rulesApp,
    storageState: OWNER_STATE.rulesApp,
    extraHTTPHeaders: { origin: E2E_URLS.rulesApp },
  });
  const request = context.request;
  const tag = Date.now();
  const mutate = async (path: string, input: unknown) => {
    const res = await request.post(`/api/trpc/${path}`, { data: { json: input } });
    expect(res.ok(), `${path}: ${await res.text()}`).toBe(true);
    return (await res.json()).result.data.json;
  };
  const query = async (path: string) => {
    const res = await request.get(`/api/trpc/${path}`);
    expect(res.ok(), `${path}: ${await res.text()}`).toBe(true);
    return (await res.json()).result.data.json;
  };
  const tokenName = `e2e no-js ${tag}`;
  const headers = { authorization: `Bearer ${(await mutate("apiToken.create", { name: tokenName })).token}` };
  const refresh = async (id: string) =>
    (await (await request.post(`/api/v1/trackers/${id}/refresh`, { headers })).json()).run as { outcome: string };

  // A tracker with a material change, routed to the daily digest on its own page.
  const path = `/e2e-no-js-${tag}`;
  await site.setPage(path, { body: shop("$100.00") });
  const decision = `Is the no-script shop cutting its price? (${tag})`;
  const created = await request.post("/api/v1/trackers", {
    headers,
    data: {
      decision,
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(path) },
      definition: cssPriceDefinition(0.05),
    },
  });
  expect(created.status()).toBe(201);
  const trackerId = (await created.json()).tracker.id as string;
  expect((await refresh(trackerId)).outcome).toBe("baseline");
  await site.setPage(path, { body: shop("$80.00") });
  expect((await refresh(trackerId)).outcome).toBe("material");
  await mutate("notification.updateTrackerRouting", { trackerId, material: "digest", notable: null, failing: null });
  // The scheduler's pass delivers the change to the inbox (the apps run with SCHEDULER=off).
  const cron = await request.post("/api/cron/refresh", {
    headers: { authorization: `Bearer ${SENTINELS.CRON_SECRET}` },
  });
  expect(cron.ok()).toBe(true);

  // A feed watched as a set, with a member that appeared after the baseline.
  const feedPath = `/e2e-no-js-${tag}-changelog.rss`;
  await site.setPage(feedPath, { body: feedFixture("changelog.rss.xml"), contentType: RSS });
  const setRes = await request.post("/api/v1/trackers", {
    headers,
    data: {
      decision: `What did the no-script rival ship? (${tag})`,
      capability: "feed.items",
      capabilityInput: { url: site.urlFor(feedPath) },
      definition: feedSetDefinition(),
    },
  });
  expect(setRes.status()).toBe(201);
  const setId = (await setRes.json()).tracker.id as string;
  expect((await refresh(setId)).outcome).toBe("baseline");
  await site.setPage(feedPath, { body: feedFixture("changelog-v2.rss.xml"), contentType: RSS });
  expect((await refresh(setId)).outcome).toBe("material");
  const listed = await request.get(`/api/v1/trackers/${setId}/members?sort=first_seen`, { headers });
  const newest = ((await listed.json()).members as { key: string; isNew: boolean }[]).find((m) => m.isNew);
  expect(newest, "a member that appeared after the baseline").toBeDefined();

  const hookPath = `/e2e-no-js-hook-${tag}`;
  await site.setPage(hookPath, { body: "ok", contentType: "text/plain" });
  const channelName = `No-script hook ${tag}`;
  await mutate("notification.createChannel", { kind: "webhook", target: site.urlFor(hookPath), name: channelName });

  const feed = await query("settings.feed");
  const defaults = await query("notification.defaults");
  seed = {
    tag,
    decision,
    trackerId,
    setId,
    memberKey: newest?.key ?? "",
    channelName,
    tokenName,
    timezone: feed.timezone ?? "",
    defaults: { material: defaults.material, notable: defaults.notable, digestHour: defaults.digestHour },
  };
  await context.close();
});

let noScript: BrowserContext;
test.beforeEach(async ({ browser }) => {
  noScript = await browser.newContext({
    baseURL: E2E_URLS.rulesApp,
    storageState: OWNER_STATE.rulesApp,
    javaScriptEnabled: false,
  });
});
test.afterEach(() => noScript.close());

/** Opens `path` with scripts off: the page is signed in and shows no loading state anywhere. */
async function open(path: string): Promise<Page> {
  const page = await noScript.newPage();
  const res = await page.goto(path);
  expect(res?.status()).toBe(200);
  await expect(page.locator("main h1")).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: /Loading/i })).toHaveCount(0);
  // What is on screen (innerText skips the hidden parts a script would reveal) says nothing is loading.
  await expect(page.locator("main")).not.toContainText(/Loading/i, { useInnerText: true });
  return page;
}

test("Settings: every section's content, no skeleton", async () => {
  const page = await open("/settings");
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();

  const account = page.getByRole("region", { name: "Account" });
  await expect(account.getByTestId("session-row").filter({ hasText: "this browser" })).toHaveCount(1);
  await expect(page.getByRole("region", { name: "People" }).getByTestId("open-sign-up")).toBeEnabled();

  const feed = page.getByRole("region", { name: "Feed", exact: true });
  await expect(feed.getByRole("form", { name: "Feed settings" })).toBeVisible();
  await expect(feed.getByLabel("Time zone")).toBeVisible();
  await expect(feed.getByLabel("Time zone")).toHaveValue(seed.timezone);
  await expect(feed.getByTestId("current-place")).toBeVisible();

  const notifications = page.locator("#notifications");
  await expect(notifications.getByRole("form", { name: "Add a channel" })).toBeVisible();
  await expect(notifications.getByTestId("notification-channel").filter({ hasText: seed.channelName })).toHaveCount(1);
  const defaults = notifications.getByRole("form", { name: "Notification defaults" });
  await expect(defaults).toBeVisible();
  await expect(defaults.getByLabel("Material changes")).toHaveValue(seed.defaults.material);
  await expect(defaults.getByLabel("Notable changes")).toHaveValue(seed.defaults.notable);
  await expect(defaults.getByLabel("Daily digest at")).toHaveValue(String(seed.defaults.digestHour));
  await expect(notifications).toContainText("A private Atom feed of your material changes");

  await expect(page.getByRole("region", { name: "Usage this month" }).getByTestId("usage-budget")).toBeVisible();

  const tokens = page.getByRole("region", { name: "API tokens" });
  await expect(tokens.getByTestId("api-token-row").filter({ hasText: seed.tokenName })).toHaveCount(1);
});

test("the tracker page: its notifications card, context files and timeline", async () => {
  const page = await open(`/trackers/${seed.trackerId}`);
  await expect(page.getByTestId("tracker-decision")).toHaveText(seed.decision);
  const card = page.getByTestId("tracker-notifications");
  const routing = card.getByTestId("tracker-routing");
  await expect(routing).toBeVisible();
  await expect(routing.getByLabel("Material changes")).toHaveValue("digest");
  await expect(routing.getByLabel("Notable changes")).toHaveValue("");
  await expect(routing.getByLabel("Notable changes").locator("option").first()).toHaveText(
    /^Default \((immediately|daily digest|off)\)$/,
  );
  await expect(card).toContainText("A private Atom feed of this tracker's material changes");
  await expect(page.getByTestId("tracker-context-files")).toContainText("No files yet.");
  await expect(page.locator('[data-testid="timeline-entry"][data-materiality="material"]')).toHaveCount(1);
});

test("the inbox lists the change", async () => {
  const page = await open("/inbox");
  await expect(page.getByTestId("inbox-item").filter({ hasText: seed.decision })).toHaveCount(1);
});

test("System shows how the server runs", async () => {
  const page = await open("/system");
  await expect(page.getByTestId("system-ai-mode")).toHaveText("Off — built-in rules");
  await expect(page.getByTestId("system-version")).toBeVisible();
});

test("the trackers list and the new tracker page", async () => {
  const list = await open("/trackers");
  await expect(list.getByRole("link", { name: seed.decision })).toBeVisible();
  const setup = await open("/trackers/new");
  await expect(setup.getByRole("heading", { level: 1, name: "New tracker" })).toBeVisible();
  await expect(setup.getByTestId("setup-input")).toBeVisible();
});

test("a set tracker's members and a member's page", async () => {
  const tracker = await open(`/trackers/${seed.setId}`);
  await expect(tracker.getByTestId("set-members").getByTestId("set-member").first()).toBeVisible();
  const member = await open(`/trackers/${seed.setId}/members/${encodeURIComponent(seed.memberKey)}`);
  await expect(member.getByTestId("set-member-page")).toBeVisible();
  await expect(member.getByTestId("set-member-change").first()).toBeVisible();
});
