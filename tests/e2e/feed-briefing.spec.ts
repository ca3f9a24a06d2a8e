import { expect, type Page, test } from "@playwright/test";
import { E2E_URLS, site } from "./fixtures";
import { OWNER_STATE } from "./owner";
import { SETUP_PRICING_HTML } from "./setup-pages";

/**
 * The feed as a briefing (docs/feed.md), through the app only: a tracker set up in rules mode records 100
 * material changes through the real refresh path; the feed shows ONE card for it — relative time, money formatted
 * by currency, "new since you last looked" (the e2e apps end a visit after FEED_VISIT_GAP_MS = 5 s, see
 * playwright.config.ts) — at desktop and phone widths, and the page stays short. Without JavaScript the feed, the
 * trackers list and the tracker's timeline still show their content (rendered on the server).
 */
const PAGE = "/feed-briefing/acme/pricing";
const CHANGES = 100;
const VISIT_GAP_MS = 5_000;

const pricing = (price: "45" | "39") =>
  SETUP_PRICING_HTML.replaceAll("/setup/acme/pricing", PAGE)
    .replace('"45.00"', `"${price}.00"`)
    .replace("$45", `$${price}`);

async function refresh(page: Page, trackerId: string): Promise<string> {
  const res = await page.request.post("/api/trpc/tracker.refresh", { data: { json: { trackerId } } });
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { result: { data: { json: { outcome: string } } } }).result.data.json.outcome;
}

let trackerId: string;
let decision: string;

test.describe.configure({ mode: "serial" });

test("a tracker with 100 recorded changes is one card: relative time, money, a 'new' marker, a short page", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await site.setPage(PAGE, { body: pricing("45") });
  await page.goto("/trackers/new");
  await page.getByTestId("setup-input").fill(`Is Acme's briefing price under our $49 plan? ${site.urlFor(PAGE)}`);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("draft-card").locator('[data-field-name="acme_pro_price"]')).toBeVisible();
  await page.getByTestId("lock-button").click();
  await expect(page).toHaveURL(/\/trackers\/(?!new)[^/?]+$/);
  trackerId = new URL(page.url()).pathname.split("/").at(-1) as string;
  expect(await refresh(page, trackerId)).toBe("baseline");

  // A look at the feed before the changes: they will be new since then.
  await page.goto("/");
  await expect(page.getByTestId("feed")).toBeVisible();
  // …then away from it: an open feed reloads itself live on each change, and that is still looking.
  await page.goto("/trackers");
  const lookedAt = Date.now();

  for (let i = 0; i < CHANGES; i++) {
    await site.setPage(PAGE, { body: pricing(i % 2 === 0 ? "39" : "45") });
    expect(await refresh(page, trackerId)).toBe("material");
  }
  // The next look must be a new visit (no view for longer than the gap).
  const waited = Date.now() - lookedAt;
  if (waited < VISIT_GAP_MS + 1_000) await page.waitForTimeout(VISIT_GAP_MS + 1_000 - waited);

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    if (viewport.width === 1280) await page.goto("/");
    const cards = page.locator('[data-testid="feed-card"][data-item-type="tracker-change"]');
    const card = cards.filter({ has: page.locator(`a[href="/trackers/${trackerId}"]`) });
    await expect(card).toHaveCount(1);
    decision = (await card.getByRole("heading").first().textContent()) ?? "";
    expect(decision).toContain("briefing price");
    // The latest change (the 100th: 39 → 45) with its time and its money formatted by currency.
    await expect(card.getByTestId("feed-when").first()).toHaveText(/^(just now|\d+ min ago)$/);
    await expect(card.getByTestId("feed-when").first().locator("[title]")).toHaveAttribute(
      "title",
      /\d{4}|\d{1,2}:\d{2}/,
    );
    const row = card.getByTestId("change-row").first();
    await expect(row).toContainText("$39.00");
    await expect(row).toContainText("$45.00");
    await expect(card).not.toContainText('{"amount"');
    await expect(card).not.toContainText("acme_pro_price");
    await expect(card.getByTestId("new-marker").first()).toHaveText("20+ new since you last looked");
    await expect(card.getByTestId("sparkline")).toBeVisible();

    // Earlier changes are folded; unfolded, a bounded few and the way to the timeline.
    const earlier = card.getByTestId("earlier-changes");
    await expect(earlier.locator("summary")).toHaveText(`${CHANGES - 1} earlier changes`);
    if (!(await earlier.evaluate((d) => (d as HTMLDetailsElement).open))) await earlier.locator("summary").click();
    await expect(earlier.getByTestId("earlier-change")).toHaveCount(5);
    await expect(earlier.getByRole("link")).toHaveAttribute("href", `/trackers/${trackerId}`);

    // Bounded: the card is a card, not a history, and the page grows with cards, not with changes.
    const cardBox = await card.boundingBox();
    expect(cardBox?.height ?? Number.POSITIVE_INFINITY).toBeLessThan(900);
    const total = await page.getByTestId("feed-card").count();
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeLessThan(1_000 + total * 700);
  }
});

test("without JavaScript the feed, the trackers list and the tracker's timeline show their content", async ({
  browser,
}) => {
  const context = await browser.newContext({
    javaScriptEnabled: false,
    storageState: OWNER_STATE.rulesApp,
    baseURL: E2E_URLS.rulesApp,
  });
  try {
    const page = await context.newPage();
    await page.goto("/");
    const card = page
      .locator('[data-testid="feed-card"]')
      .filter({ has: page.locator(`a[href="/trackers/${trackerId}"]`) });
    await expect(card).toHaveCount(1);
    await expect(card.getByTestId("change-row").first()).toContainText("$45.00");
    await expect(card.getByTestId("feed-when").first()).toHaveText(/ago|just now/);
    await expect(page.getByText("Loading your feed")).toHaveCount(0);

    await page.goto("/trackers");
    await expect(page.getByRole("link", { name: decision }).first()).toBeVisible();

    await page.goto(`/trackers/${trackerId}`);
    await expect(page.getByTestId("timeline-entry").first()).toBeVisible();
    await expect(page.getByTestId("timeline-entry").first()).toContainText("$");
  } finally {
    await context.close();
  }
});
