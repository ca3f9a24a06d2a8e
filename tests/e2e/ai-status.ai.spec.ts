import { expect, test } from "@playwright/test";
import { E2E_URLS } from "./ports";

test("with a model configured, the header names the local server it uses", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("ai-status")).toContainText(`AI: local server at ${E2E_URLS.model}/v1`);
  await page.getByTestId("ai-status").click();
  await expect(page).toHaveURL(/\/system$/);
  await expect(page.getByTestId("system-ai-model-judge")).toContainText("fixture-model");
});
