import { readFileSync } from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { site } from "./fixtures";

/**
 * Trackers that watch a set (docs/sets.md), as a person meets them in rules mode: a listing page pasted with "did the
 * rival drop or add any products?", or a feed's address with a decision about what the rival ships, is drafted as a
 * set, locked and refreshed; a change is one roll-up on the tracker page and one card in the feed (its headline and
 * its members linked), the members list shows who is new and who is missing, and a member's own page opens from the
 * card — at 1280 and 390 px.
 */

const fixture = (name: string) => readFileSync(`tests/fixtures/${name}`, "utf8");
const RSS = "application/rss+xml; charset=utf-8";

async function setUpSetTracker(
  page: Page,
  input: { path: string; body: string; contentType?: string; decision: string; listed: number },
) {
  const { path, body, contentType, decision } = input;
  await site.setPage(path, { body, ...(contentType ? { contentType } : {}) });
  await page.goto("/trackers/new");
  await page.getByTestId("setup-input").fill(`${decision} ${site.urlFor(path)}`);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("chat-message").last()).toContainText("as a set");
  await expect(page.getByTestId("draft-card")).toHaveAttribute("data-state", "saved");
  await page.getByTestId("lock-button").click();
  await expect(page).toHaveURL(/\/trackers\/(?!new)[^/?]+$/);
  const members = page.getByTestId("set-members");
  await expect(members).toContainText("No members yet");
  await page.getByRole("button", { name: "Refresh now" }).click();
  await expect(page.getByTestId("refresh-outcome")).toBeVisible();
  await expect(members.getByTestId("set-member")).toHaveCount(input.listed);
  return members;
}

const noOverflow = async (page: Page) =>
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);

/** The feed's one card for the decision, rolling the refresh up: its headline and its members, each a link. */
async function feedCard(page: Page, decision: string, headline: RegExp, names: RegExp) {
  await page.goto("/");
  // The tracker's own card: the briefing card may name the decision too.
  const card = page.locator('[data-testid="feed-card"]:not([data-item-type="briefing"])').filter({ hasText: decision });
  await expect(card).toHaveCount(1);
  await expect(card).toContainText(headline);
  await expect(card.getByTestId("feed-set-member").filter({ hasText: names })).toHaveCount(1);
  return card;
}

for (const [label, viewport] of [
  ["desktop", { width: 1280, height: 900 }],
  ["phone", { width: 390, height: 844 }],
] as const) {
  test.describe(label, () => {
    test.use({ viewport });
    test("a listing watched as a set: a product added, one dropped from the page, a price moved", async ({ page }) => {
      const path = `/e2e-sets/beans-${label}-${Date.now()}`;
      const decision = `Did the rival drop or add any products (${label} check)?`;
      const base = fixture("listings/dom-cards/base.html");
      const members = await setUpSetTracker(page, { path, body: base, decision, listed: 7 });

      await site.setPage(path, { body: fixture("listings/dom-cards/changed.html") });
      await page.getByRole("button", { name: "Refresh now" }).click();
      await expect(page.getByTestId("refresh-outcome")).toContainText("material");
      // One roll-up on the tracker's timeline (besides the baseline): who appeared and whose price moved.
      const entries = page.locator('[data-testid="timeline-entry"][data-materiality="material"]');
      await expect(entries).toHaveCount(1);
      await expect(entries.first()).toContainText("Rwanda Nyamasheke");
      // The members: Rwanda new; Kenya no longer listed, missing once (gone only after a second read without it).
      await expect(members.getByTestId("set-member")).toHaveCount(8);
      await expect(members.getByTestId("set-member").filter({ hasText: "Rwanda Nyamasheke" })).toContainText(/new/i);
      await expect(members.getByTestId("set-member").filter({ hasText: "Kenya Nyeri AA" })).toContainText(/missing 1/i);
      await noOverflow(page);
      const card = await feedCard(page, decision, /1 new item/, /Rwanda Nyamasheke/);
      await noOverflow(page);

      // The member's own page, from the feed card: its status, its fields, its own timeline, and the way back.
      await card.getByTestId("feed-set-member").filter({ hasText: "Rwanda Nyamasheke" }).getByRole("link").click();
      await expect(page).toHaveURL(/\/trackers\/[^/]+\/members\/[^/]+$/);
      const member = page.getByTestId("set-member-page");
      await expect(page.getByTestId("set-member-name")).toHaveText("Rwanda Nyamasheke");
      await expect(member).toHaveAttribute("data-status", "listed");
      await expect(member.locator('[data-badge="new"]')).toBeVisible();
      await expect(page.getByTestId("set-member-status")).toContainText("Listed in the last read.");
      await expect(page.getByTestId("set-member-change")).toHaveCount(1);
      await expect(page.getByTestId("set-member-change").first()).toHaveAttribute("data-kind", "appeared");
      await noOverflow(page);
      await page.getByTestId("set-member-back").click();
      await expect(page.getByTestId("set-members").getByTestId("set-member")).toHaveCount(8);
    });
  });
}

test("a feed watched as a set: a new and an edited entry are one roll-up, one feed card, and a new member", async ({
  page,
}) => {
  const path = `/e2e-sets/changelog-${Date.now()}.rss`;
  const decision = `What did the rival ship this month (${Date.now().toString(36)})?`;
  const body = fixture("feeds/changelog.rss.xml");
  const members = await setUpSetTracker(page, { path, body, contentType: RSS, decision, listed: 5 });

  await site.setPage(path, { body: fixture("feeds/changelog-v2.rss.xml"), contentType: RSS });
  await page.getByRole("button", { name: "Refresh now" }).click();
  await expect(page.getByTestId("refresh-outcome")).toContainText("material");
  const entries = page.locator('[data-testid="timeline-entry"][data-materiality="material"]');
  await expect(entries).toHaveCount(1);
  await expect(entries.first()).toContainText(/comment/i);
  await expect(entries.first()).toContainText(/edge regions/i);
  await expect(members.getByTestId("set-member")).toHaveCount(6);
  await expect(members).toContainText(/missing 1/i);
  await feedCard(page, decision, /1 new entr/i, /comment/i);
});
