import { expect, type Page, test } from "@playwright/test";
import { site } from "./fixtures";
import { SETUP_PRICING_HTML } from "./setup-pages";

/**
 * Rules mode, through the app only: set up a tracker on a fixture page, record a baseline, open the feed,
 * then a refresh that records a material change makes the card appear WITHOUT a reload (the refresh
 * notifies the feed; the page's SSE subscription reloads the data). Rules mode: its slots stay empty.
 */
const PAGE = "/feed-e2e/acme/pricing";

async function refresh(page: Page, trackerId: string) {
  const res = await page.request.post("/api/trpc/tracker.refresh", { data: { json: { trackerId } } });
  expect(res.ok(), await res.text()).toBe(true);
  return (await res.json()) as { result: { data: { json: { outcome: string } } } };
}

test("a tracker's material change appears on the open feed live, with labelled from → to rows and empty slots", async ({
  page,
}) => {
  await site.setPage(PAGE, { body: SETUP_PRICING_HTML.replaceAll("/setup/acme/pricing", PAGE) });
  await page.goto("/trackers/new");
  await page
    .getByTestId("setup-input")
    .fill(`Tell me if Acme's pricing page undercuts our $49 plan — ${site.urlFor(PAGE)}`);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("draft-card").locator('[data-field-name="acme_pro_price"]')).toBeVisible();
  await page.getByTestId("lock-button").click();
  await expect(page).toHaveURL(/\/trackers\/(?!new)[^/?]+$/);
  const trackerId = new URL(page.url()).pathname.split("/").at(-1) as string;

  const baseline = await refresh(page, trackerId);
  expect(baseline.result.data.json.outcome).toBe("baseline");

  await page.goto("/");
  await expect(page.getByTestId("feed")).toHaveAttribute("data-live", "live");
  const cards = page.locator('[data-testid="feed-card"][data-item-type="tracker-change"]');
  // Scoped to this tracker: the app's database lives for the whole run and may hold other trackers' cards.
  const card = cards.filter({ has: page.locator(`a[href="/trackers/${trackerId}"]`) });
  await expect(card).toHaveCount(0);
  await page.evaluate(() => {
    (window as unknown as { __noReload: boolean }).__noReload = true;
  });

  await site.setPage(PAGE, {
    body: SETUP_PRICING_HTML.replaceAll("/setup/acme/pricing", PAGE)
      .replace('"45.00"', '"39.00"')
      .replace("$45", "$39"),
  });
  const changed = await refresh(page, trackerId);
  expect(changed.result.data.json.outcome).toBe("material");

  await expect(card).toHaveCount(1);
  // One card for the decision; the field by its label, the money by its currency.
  const row = card.getByTestId("change-row").filter({ hasText: "Acme pro price" });
  await expect(row).toContainText("$45.00");
  await expect(row).toContainText("$39.00");
  await expect(card.locator('[data-testid^="slot-"]')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
});
