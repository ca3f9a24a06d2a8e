import { expect, type Page, test } from "@playwright/test";
import { model, site } from "./fixtures";
import { SETUP_PRICING_HTML } from "./setup-pages";
import { setupRecordings } from "./setup-recordings";

/** Direct edits on the card also work with the drafter agent on: the agent's draft is edited, then locked in chat. */

test.beforeEach(async () => {
  await site.setPage("/setup/acme/pricing", { body: SETUP_PRICING_HTML });
  await model.setRecordings(setupRecordings(site.url));
});

async function send(page: Page, text: string) {
  await page.getByTestId("setup-input").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

test("AI: the agent's draft is edited on the card (threshold, new field), and 'looks good' locks the edited draft", async ({
  page,
}) => {
  await page.goto("/trackers/new");
  await send(page, `Tell me if Acme's pricing page undercuts our $49 plan — ${site.urlFor("/setup/acme/pricing")}`);
  const card = page.getByTestId("draft-card");
  const rules = page.getByTestId("draft-rules");
  await expect(card).toHaveAttribute("data-state", "saved");
  await expect(card.getByTestId("draft-field")).toHaveCount(3);
  await expect(page.getByTestId("chat-message").last()).toContainText("Does it look good?");
  await expect(rules).toContainText("pro_price: material on a 1% move or more");

  const pro = card.locator('[data-field-name="pro_price"]');
  await pro.getByRole("button", { name: "Edit pro_price" }).click();
  const form = pro.getByTestId("field-edit-form");
  await form.getByLabel("Percentage (%)").fill("");
  await form.getByLabel(/^Amount/).fill("2");
  await form.getByLabel("Direction").selectOption("down");
  await form.getByLabel(/^Amount/).press("Enter");
  await expect(form).toHaveCount(0);
  await expect(rules).toContainText("pro_price: material when it falls by 2 USD or more (rises are noise)");

  await card.getByRole("button", { name: "+ Add a field" }).click();
  const add = card.getByTestId("add-field-form");
  await add.getByLabel("Name (snake_case)").fill("plan_count");
  await add.getByLabel("Type").selectOption("integer");
  await add.getByLabel("Unit").fill("plans");
  await add.getByLabel("Description").fill("How many plans the pricing page lists");
  await add.getByLabel("Rule").selectOption("any_change");
  await add.getByRole("button", { name: "Add field" }).click();
  await expect(card.locator('[data-field-name="plan_count"]')).toContainText("How many plans the pricing page lists");
  await expect(rules).toContainText("plan_count: material on any change");

  await send(page, "looks good");
  await expect(page).toHaveURL(/\/trackers\/(?!new)[^/?]+$/);
  const locked = page.getByTestId("locked-definition");
  await expect(locked).toContainText("v1");
  await expect(locked.getByTestId("definition-field-pro_price")).toContainText("falls by 2 USD or more");
  await expect(locked.getByTestId("definition-field-plan_count")).toContainText("integer");
  await expect(locked.getByTestId("definition-field-plan_count")).toContainText("material on any change");
});
