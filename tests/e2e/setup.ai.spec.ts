import { expect, type Page, test } from "@playwright/test";
import { model, site } from "./fixtures";
import { SETUP_PRICING_HTML } from "./setup-pages";
import { setupRecordings } from "./setup-recordings";

/** Tracker setup with the drafter agent on the fixture model server (recorded, streamed tool calls). */

test.beforeEach(async () => {
  await site.setPage("/setup/acme/pricing", { body: SETUP_PRICING_HTML });
  await model.setRecordings(setupRecordings(site.url));
});

async function send(page: Page, text: string) {
  await page.getByTestId("setup-input").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

/** Records every distinct state of the draft card ("streaming|writing… 2 fields") as it changes. */
async function watchDraftCard(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { __draftStates: string[] };
    w.__draftStates = [];
    const read = () => {
      const card = document.querySelector('[data-testid="draft-card"]');
      const count = document.querySelector('[data-testid="draft-field-count"]');
      const state = `${card?.getAttribute("data-state")}|${count?.textContent ?? ""}`;
      if (w.__draftStates.at(-1) !== state) w.__draftStates.push(state);
    };
    new MutationObserver(read).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
  });
}

test("AI: decision with a URL → sample → draft streams in → 'add a field' revises → 'looks good' locks v1 → tracker page", async ({
  page,
}) => {
  await page.goto("/trackers/new");
  await expect(page.getByTestId("ai-off-note")).toHaveCount(0);
  await watchDraftCard(page);
  const url = site.urlFor("/setup/acme/pricing");
  await send(page, `Tell me if Acme's pricing page undercuts our $49 plan — ${url}`);

  await expect(page.getByTestId("sample")).toContainText(`Sample read from ${url}`);
  const card = page.getByTestId("draft-card");
  await expect(card).toHaveAttribute("data-state", "saved");
  await expect(card.getByTestId("draft-field")).toHaveCount(3);
  await expect(page.getByTestId("chat-message").last()).toContainText("Does it look good?");
  const states = await page.evaluate(() => (window as unknown as { __draftStates: string[] }).__draftStates);
  const intermediate = [...new Set(states.filter((s) => s.startsWith("streaming|")))];
  // At least two distinct partial drafts were on screen before the saved one (e.g. 1 field, then 2).
  expect(intermediate.length).toBeGreaterThanOrEqual(2);
  expect(intermediate.some((s) => s.includes("1 field"))).toBe(true);
  expect(intermediate.some((s) => s.includes("2 fields"))).toBe(true);
  await expect(page.getByTestId("draft-rules")).toContainText("pro_price: material on a 1% move or more");
  await expect(page.getByTestId("draft-rules")).toContainText("a new or removed plan is material");

  await send(page, "add a field for the annual price");
  await expect(card.locator('[data-field-name="annual_price"]')).toBeVisible();
  await expect(card).toHaveAttribute("data-state", "saved");
  await expect(page.getByTestId("chat-message").last()).toContainText("Added annual_price");

  await send(page, "looks good");
  await expect(page).toHaveURL(/\/trackers\/(?!new)[^/?]+$/);
  const locked = page.getByTestId("locked-definition");
  await expect(locked).toContainText("v1");
  await expect(locked.getByTestId("definition-field-pro_price")).toBeVisible();
  await expect(locked.getByTestId("definition-field-annual_price")).toBeVisible();
});

test("AI: a drafted definition that fails validation is reported in the chat; the conversation stays usable", async ({
  page,
}) => {
  await page.goto("/trackers/new");
  await send(page, `Watch the broken one ${site.urlFor("/setup/acme/pricing")}`);
  const error = page.locator('[data-testid="chat-message"][data-kind="error"]');
  await expect(error).toContainText("did not pass validation, so nothing was saved");
  await expect(error).toContainText("money field needs a currency");
  await expect(page.getByTestId("draft-card")).toHaveAttribute("data-state", "empty");

  await send(page, "add a field for the annual price");
  await expect(page.getByTestId("draft-card").locator('[data-field-name="annual_price"]')).toBeVisible();

  // Reload: the conversation and the draft are still there.
  await page.reload();
  await expect(page.locator('[data-testid="chat-message"][data-kind="error"]')).toBeVisible();
  await expect(page.getByTestId("draft-card").locator('[data-field-name="annual_price"]')).toBeVisible();
});
