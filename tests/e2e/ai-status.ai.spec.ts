import { expect, test } from "@playwright/test";
import { E2E_URLS } from "./ports";

test("with a model configured, the header names the local server it uses", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("ai-status")).toContainText(`AI: local server at ${E2E_URLS.model}/v1`);
  await page.goto("/settings");
  await expect(page.getByText("fixture-model").first()).toBeVisible();
});
