import { expect, type Page, test } from "@playwright/test";
import { site } from "./fixtures";
import { SETUP_PRICING_HTML } from "./setup-pages";
import { lastReply, watchTurn } from "./setup-watch";

/**
 * Rules mode: three turns after the draft — the previous reply and the draft card stay on screen the
 * whole time (sampled on every DOM change and every frame until the network is idle after the reply).
 */

test.beforeEach(async () => {
  await site.setPage("/setup/stable/pricing", { body: SETUP_PRICING_HTML });
});

async function send(page: Page, text: string) {
  await page.getByTestId("setup-input").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

test("rules mode: three turns — the previous reply and the draft card never leave the screen", async ({ page }) => {
  await page.goto("/trackers/new");
  await send(page, `Tell me if Acme's pricing page undercuts our $49 plan — ${site.urlFor("/setup/stable/pricing")}`);
  const card = page.getByTestId("draft-card");
  await expect(card.locator('[data-field-name="acme_pro_price"]')).toBeVisible();
  await expect(page.getByTestId("chat-message").last()).toContainText("drafted");

  const messages = ["add a field for the annual price", "ignore rating wobbles under 0.3", "what happens next?"];
  for (const [i, message] of messages.entries()) {
    const previousReply = await lastReply(page);
    const watch = await watchTurn(page, { previousReply, message });
    await send(page, message);
    await expect(page.getByTestId("chat-message")).toHaveCount(4 + 2 * i);
    await expect(page.getByTestId("chat-message").last()).toContainText("AI is off");
    await page.waitForLoadState("networkidle");
    const seen = await watch.stop();
    expect(seen.sawTurnInFlight, "the sampler ran while the turn was in flight").toBe(true);
    expect(seen.violations, `previous reply or draft card missing during “${message}”`).toEqual([]);
  }
  await expect(card.getByTestId("draft-field").first()).toBeVisible();
});
