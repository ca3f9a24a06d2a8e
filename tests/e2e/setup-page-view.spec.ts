import { expect, type Page, test } from "@playwright/test";
import { volatileFor } from "../fixtures/corpus/pages";
import { PLAN_PAGES } from "../fixtures/corpus/pages/plans";
import { site } from "./fixtures";
import { lockAndCheck } from "./setup-lock";

/**
 * The page view in setup (rules mode, docs/page-view.md): the sample page, inert, with the drafted price outlined
 * and labelled and the other plans' prices marked as passed over; a click (desktop) or a tap (phone) on another
 * element, then the form below — reachable by keyboard — binds it to a field, and locking keeps it.
 */

const plans = PLAN_PAGES.find((p) => p.id === "names-in-buttons");
if (!plans) throw new Error("the names-in-buttons page is missing from the plans corpus");

test.beforeEach(async () => {
  await site.setPage(plans.path, { body: plans.render(plans.prices, volatileFor(0)) });
});

async function startSetup(page: Page) {
  await page.goto("/trackers/new");
  await page.getByTestId("setup-input").fill(`Is the Solo plan getting pricier? ${site.urlFor(plans?.path ?? "")}`);
  await page.getByRole("button", { name: "Send" }).click();
  const view = page.getByTestId("page-view");
  await expect(view.getByTestId("page-view-field").first()).toContainText(/solo_price reads 12/);
  const frame = page.frameLocator('[data-testid="page-view-frame"]');
  // The watched price is outlined solid, the others dashed; nothing of the page runs in the copy.
  await expect(frame.getByText("$12", { exact: true })).toHaveCSS("outline-style", "solid");
  await expect(frame.getByText("$20", { exact: true })).toHaveCSS("outline-style", "dashed");
  await expect(frame.locator("script")).toHaveCount(0);
  return { view, frame };
}

test.describe("desktop", () => {
  test.use({ viewport: { width: 1280, height: 900 } });
  test("click another plan's price in the page, watch it instead, then lock", async ({ page }) => {
    const { view, frame } = await startSetup(page);
    await frame.getByText("$20", { exact: true }).click();
    await expect(view.getByTestId("page-view-pick")).toContainText("You picked “$20”");
    await expect(view.getByTestId("page-view-field-select")).toHaveValue("solo_price");
    await view.getByTestId("page-view-use").click();
    await expect(view.getByTestId("page-view-status")).toContainText(
      "Now duo_price reads the price in the card with the button “Choose Duo”: “$20”",
    );
    await expect(frame.getByText("$20", { exact: true })).toHaveCSS("outline-style", "solid");
    await expect(view.getByTestId("page-view-field").first()).toContainText(/duo_price reads 20/);
    await lockAndCheck(page, "duo_price");
  });
});

test.describe("phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });
  test("tap an element, make it a new field with the keyboard, then lock", async ({ page }) => {
    const { view, frame } = await startSetup(page);
    await frame.getByText("$30", { exact: true }).click();
    const select = view.getByTestId("page-view-field-select");
    await select.focus();
    await select.selectOption({ label: "a new field" });
    await page.keyboard.press("Tab"); // to "Watch this"
    await expect(view.getByTestId("page-view-use")).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(view.getByTestId("page-view-status")).toContainText(
      /Now family_price reads .*“\$30”.*new money field/,
    );
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const added = (await view.getByTestId("page-view-status").textContent())?.match(/Now (\w+) reads/)?.[1] ?? "";
    await lockAndCheck(page, added);
  });
});
