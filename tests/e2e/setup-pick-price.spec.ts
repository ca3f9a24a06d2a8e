import { expect, type Page, test } from "@playwright/test";
import { volatileFor } from "../fixtures/corpus/pages";
import { PLAN_PAGES } from "../fixtures/corpus/pages/plans";
import { site } from "./fixtures";
import { lockAndCheck } from "./setup-lock";

/**
 * Pointing at the right price in setup (rules mode): the card lists the sample's plan prices with the watched one
 * checked; picking another — by click at desktop width, by keyboard on a phone — rebinds the main price field, the
 * reply says what it now reads, and locking keeps that choice.
 */

const plans = PLAN_PAGES.find((p) => p.id === "cards-price-class");
if (!plans) throw new Error("the cards-price-class page is missing from the plans corpus");

test.beforeEach(async () => {
  await site.setPage(plans.path, { body: plans.render(plans.prices, volatileFor(0)) });
});

async function startSetup(page: Page) {
  await page.goto("/trackers/new");
  await page
    .getByTestId("setup-input")
    .fill(`Is Acme undercutting us on the Starter plan? ${site.urlFor(plans?.path ?? "")}`);
  await page.getByRole("button", { name: "Send" }).click();
  const prices = page.getByTestId("price-candidates");
  await expect(prices).toBeVisible();
  await expect(prices.getByRole("radio", { name: /Starter/ })).toBeChecked();
  return prices;
}

test.describe("desktop", () => {
  test.use({ viewport: { width: 1280, height: 900 } });
  test("click another plan's price, then lock", async ({ page }) => {
    const prices = await startSetup(page);
    await prices.getByRole("radio", { name: /Pro/ }).click();
    await expect(prices.getByRole("radio", { name: /Pro/ })).toBeChecked();
    await expect(page.getByText(/Now pro_price watches Pro: .*reads \$49/)).toBeVisible();
    await lockAndCheck(page, "pro_price");
  });
});

test.describe("phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });
  test("the keyboard path: focus the checked price, arrow to another, then lock", async ({ page }) => {
    const prices = await startSetup(page);
    await prices.getByRole("radio", { name: /Starter/ }).focus();
    await page.keyboard.press("ArrowDown"); // a radio group moves and selects with the arrows
    await expect(prices.getByRole("radio", { name: /Pro/ })).toBeChecked();
    await expect(page.getByText(/Now pro_price watches Pro/)).toBeVisible();
    await page.keyboard.press("ArrowDown");
    await expect(prices.getByRole("radio", { name: /Team/ })).toBeChecked();
    await expect(page.getByText(/Now team_price watches Team: .*reads \$99/)).toBeVisible();
    // Nothing on the card is wider than the phone.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await lockAndCheck(page, "team_price");
  });
});

test.describe("chat", () => {
  test.use({ viewport: { width: 1280, height: 900 } });
  test("a rebind by label in rules mode: the card and the list follow", async ({ page }) => {
    const prices = await startSetup(page);
    await page.getByTestId("setup-input").fill("watch the Team price instead");
    await page.getByRole("button", { name: "Send" }).click();
    await expect(page.getByTestId("chat-message").last()).toContainText(/Now team_price watches Team: .*reads \$99/);
    await expect(page.getByTestId("draft-card").locator('[data-field-name="team_price"]')).toBeVisible();
    await expect(prices.getByRole("radio", { name: /Team/ })).toBeChecked();
  });
});
