import { expect, type Page, test } from "@playwright/test";
import { model, site } from "./fixtures";
import { lockAndCheck } from "./setup-lock";
import { SETUP_PRICING_HTML } from "./setup-pages";
import { setupRecordings } from "./setup-recordings";

/**
 * The page's picture in setup (docs/page-view.md), on the app with a browser configured: the sample is shown as the
 * server's browser photographed it, with the watched price outlined; a click on the picture points at the element
 * under it, a mark is also reachable by keyboard, and the choice binds and locks like one made on the copy.
 */

test.beforeEach(async () => {
  await site.setPage("/setup/acme/pricing", { body: SETUP_PRICING_HTML });
  await model.setRecordings(setupRecordings(site.url));
});

async function startSetup(page: Page) {
  await page.goto("/trackers/new");
  await page
    .getByTestId("setup-input")
    .fill(`Tell me if Acme's pricing page undercuts our $49 plan — ${site.urlFor("/setup/acme/pricing")}`);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("draft-card")).toHaveAttribute("data-state", "saved");
  const view = page.getByTestId("page-view");
  const shot = view.getByTestId("page-shot");
  await expect(shot.locator("img")).toBeVisible();
  await expect(view.getByTestId("page-view-show-picture")).toHaveAttribute("aria-pressed", "true");
  // The copy is there too, hidden until asked for.
  await expect(view.getByTestId("page-view-frame")).toBeHidden();
  const watched = shot.getByRole("button", { name: /^Pick pro_price/ });
  await expect(watched).toBeVisible();
  return { view, shot, watched };
}

const addedField = async (view: ReturnType<Page["getByTestId"]>) =>
  (await view.getByTestId("page-view-status").textContent())?.match(/Now (\w+) reads/)?.[1] ?? "";

test.describe("desktop", () => {
  test.use({ viewport: { width: 1280, height: 900 } });
  test("click the picture beside the price: its line becomes a new field, then lock", async ({ page }) => {
    const { view, shot, watched } = await startSetup(page);
    const box = await watched.boundingBox();
    if (!box) throw new Error("the watched price has no box on the picture");
    // "Pro plan " stands left of the price on the same line: the paragraph, not the price.
    await shot.locator("img").click({ position: await imagePoint(shot, box.x - 25, box.y + box.height / 2) });
    await expect(view.getByTestId("page-view-pick")).toContainText("You picked “Pro plan $45 per month”");
    await expect(shot.getByTestId("page-shot-picked")).toBeVisible();
    await view.getByTestId("page-view-field-select").selectOption({ label: "a new field" });
    await view.getByTestId("page-view-use").click();
    await expect(view.getByTestId("page-view-status")).toContainText(/Now \w+ reads .*Pro plan \$45 per month/);
    // Copy and picture show the same choice.
    await view.getByTestId("page-view-show-copy").click();
    await expect(view.getByTestId("page-view-frame")).toBeVisible();
    await lockAndCheck(page, await addedField(view));
  });
});

test.describe("phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });
  test("reach the watched price on the picture by keyboard, watch it as a new field too, then lock", async ({
    page,
  }) => {
    const { view, watched } = await startSetup(page);
    await watched.focus();
    await page.keyboard.press("Enter");
    await expect(view.getByTestId("page-view-pick")).toContainText("You picked “45 USD”");
    const select = view.getByTestId("page-view-field-select");
    await select.focus();
    await select.selectOption({ label: "a new field" });
    await page.keyboard.press("Tab");
    await expect(view.getByTestId("page-view-use")).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(view.getByTestId("page-view-status")).toContainText(/Now \w+ reads .*\$45/);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await lockAndCheck(page, await addedField(view));
  });
});

/** A page point as a position inside the picture's image element. */
async function imagePoint(shot: ReturnType<Page["getByTestId"]>, pageX: number, pageY: number) {
  const img = await shot.locator("img").boundingBox();
  if (!img) throw new Error("the picture is not on screen");
  return { x: pageX - img.x, y: pageY - img.y };
}
