import { expect, type Page, test } from "@playwright/test";
import { site } from "./fixtures";
import { SETUP_PRICING_HTML } from "./setup-pages";

/** Direct, keyboard-friendly edits on the draft card (rules mode): every edit is validated by the server. */

test.beforeEach(async () => {
  await site.setPage("/setup/card-edit/pricing", { body: SETUP_PRICING_HTML });
});

async function send(page: Page, text: string) {
  await page.getByTestId("setup-input").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

test("rules mode: edit a rule's threshold, reject an invalid edit inline, add a field, lock → the tracker page shows them", async ({
  page,
}) => {
  await page.goto("/trackers/new");
  await send(
    page,
    `Tell me if Acme's pricing page undercuts our $49 plan — ${site.urlFor("/setup/card-edit/pricing")}`,
  );
  const card = page.getByTestId("draft-card");
  const rules = page.getByTestId("draft-rules");
  const offer = card.locator('[data-field-name="acme_pro_price"]');
  await expect(offer).toContainText("JSON pointer /offers/0/price");
  await expect(rules).toContainText("acme_pro_price: material on a 1% move or more");

  // Edit the threshold: 1% → 5 USD, previewed in plain language, saved with Enter.
  await offer.getByRole("button", { name: "Edit acme_pro_price" }).click();
  const form = offer.getByTestId("field-edit-form");
  await expect(form.getByLabel("Type")).toBeFocused();
  await expect(form.getByLabel("Type")).toHaveValue("money");
  await expect(form.getByLabel("Percentage (%)")).toHaveValue("1");
  await form.getByLabel("Percentage (%)").fill("");
  await form.getByLabel(/^Amount/).fill("5");
  await expect(form.getByTestId("rule-preview")).toHaveText("acme_pro_price: material when it moves by 5 USD or more");
  await form.getByLabel("Description").fill("Monthly price of Acme Pro");
  await form.getByLabel(/^Amount/).press("Enter");
  await expect(form).toHaveCount(0);
  await expect(rules).toContainText("acme_pro_price: material when it moves by 5 USD or more");
  await expect(rules).not.toContainText("acme_pro_price: material on a 1% move");
  await expect(offer).toContainText("Monthly price of Acme Pro");
  // The extractor survived the edit, and focus is back on the row's Edit button.
  await expect(offer).toContainText("JSON pointer /offers/0/price");
  await expect(offer.getByRole("button", { name: "Edit acme_pro_price" })).toBeFocused();

  // An invalid edit (a threshold rule with no threshold) is refused by the server: inline message, nothing saved.
  await offer.getByRole("button", { name: "Edit acme_pro_price" }).click();
  await form.getByLabel(/^Amount/).fill("");
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form.getByTestId("card-edit-error")).toContainText("needs an absolute or a relative threshold");
  await form.getByLabel("Description").press("Escape");
  await expect(form).toHaveCount(0);
  await expect(rules).toContainText("acme_pro_price: material when it moves by 5 USD or more");

  // Change a field's type: headings (a list of texts) becomes one text with "any change" mattering.
  const headings = card.locator('[data-field-name="headings"]');
  await headings.getByRole("button", { name: "Edit headings" }).click();
  await headings.getByLabel("Type").selectOption("string");
  await headings.getByLabel("Rule").selectOption("any_change");
  await headings.getByRole("button", { name: "Save" }).click();
  await expect(headings.getByTestId("draft-field-type")).toHaveText(/^string\b/);
  await expect(rules).toContainText("headings: material on any change");

  // Add a field: a bad name is refused inline, then a valid one is added.
  await card.getByRole("button", { name: "+ Add a field" }).click();
  const add = card.getByTestId("add-field-form");
  await expect(add.getByLabel("Name (snake_case)")).toBeFocused();
  await add.getByLabel("Name (snake_case)").fill("Annual Price");
  await add.getByLabel("Type").selectOption("money");
  await add.getByLabel("Currency").fill("usd");
  await add.getByLabel("Description").fill("Annual price of the Pro plan");
  await add.getByLabel("Rule").selectOption("numeric");
  await add.getByLabel("Percentage (%)").fill("10");
  await add.getByRole("button", { name: "Add field" }).click();
  await expect(add.getByTestId("card-edit-error")).toContainText("snake_case");
  await expect(card.locator('[data-field-name="Annual Price"]')).toHaveCount(0);
  await add.getByLabel("Name (snake_case)").fill("annual_price");
  await expect(add.getByTestId("rule-preview")).toHaveText("annual_price: material on a 10% move or more");
  await add.getByLabel("Name (snake_case)").press("Enter");
  await expect(add).toHaveCount(0);
  await expect(card.getByRole("button", { name: "+ Add a field" })).toBeFocused();
  const annual = card.locator('[data-field-name="annual_price"]');
  await expect(annual).toContainText("Annual price of the Pro plan");
  await expect(annual.getByTestId("draft-field-type")).toContainText("money · USD");
  await expect(rules).toContainText("annual_price: material on a 10% move or more");

  // Reload: the edits were saved, not just shown.
  await page.reload();
  await expect(rules).toContainText("acme_pro_price: material when it moves by 5 USD or more");
  await expect(card.locator('[data-field-name="annual_price"]')).toBeVisible();

  await page.getByTestId("lock-button").click();
  await expect(page).toHaveURL(/\/trackers\/(?!new)[^/?]+$/);
  const locked = page.getByTestId("locked-definition");
  await expect(locked).toContainText("v1");
  await expect(locked.getByTestId("definition-field-annual_price")).toContainText("Annual price of the Pro plan");
  await expect(locked.getByTestId("definition-field-annual_price")).toContainText("10%");
  await expect(locked.getByTestId("definition-field-acme_pro_price")).toContainText("5 USD or more");
  await expect(locked.getByTestId("definition-field-headings")).toContainText("string");
});
