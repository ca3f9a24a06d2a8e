import { expect, type Page } from "@playwright/test";

/** Locks the setup on screen and checks the tracker page shows `field` in the locked definition. */
export async function lockAndCheck(page: Page, field: string) {
  await expect(page.getByTestId("draft-card").locator(`[data-field-name="${field}"]`)).toBeVisible();
  await page.getByTestId("lock-button").click();
  await expect(page).toHaveURL(/\/trackers\/(?!new)[^/?]+$/);
  await expect(page.getByTestId("locked-definition").getByTestId(`definition-field-${field}`)).toBeVisible();
}
