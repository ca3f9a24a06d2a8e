import { expect, test } from "@playwright/test";
import { createApiToken, createPricePageTracker } from "./api-token";

/**
 * What a person sees of the scheduler (docs/scheduling.md), in Chromium at desktop and phone widths. The e2e apps run
 * with their scheduler off (SCHEDULER=off, playwright.config.ts: the specs drive every refresh themselves), which
 * is the case these pages must explain: /system says the server's scheduler is off and why, and whether anything
 * else keeps watch (another spec may have called the cron route lately); the tracker page agrees with it — "not
 * scheduled" when nothing keeps watch, "due now" when something does. The scheduler running on its own is tested on the real `npm start` in
 * tests/integration/scheduler-default-install.test.ts.
 */

for (const viewport of [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
]) {
  test(`System and the tracker page say who keeps watch (${viewport.name})`, async ({ page }) => {
    await page.setViewportSize(viewport);
    const token = await createApiToken(page.request, `e2e keeps watch ${viewport.name}`);
    const path = `/e2e-keeps-watch-${viewport.name}-${Date.now()}`;
    const id = await createPricePageTracker(page.request, token, path);

    await page.goto("/system");
    const scheduler = page.getByRole("region", { name: "Scheduler" });
    await expect(scheduler.getByTestId("system-scheduler-mode")).toHaveText(/^Off — turned off \(SCHEDULER=off\)/);
    await expect(scheduler.getByTestId("system-scheduler-trackers")).toContainText(
      /\d+ active trackers? · \d+ due now/,
    );
    const nobody = await scheduler.getByTestId("system-scheduler-nobody").isVisible();

    await page.goto(`/trackers/${id}`);
    const schedule = page.getByTestId("tracker-schedule");
    await expect(schedule).toContainText("next run");
    // Just locked, so due: said as "not scheduled" when nothing keeps watch, else "due now" (a cron call was seen).
    await expect(page.getByTestId("tracker-next-run-note")).toHaveText(
      nobody ? " (not scheduled: nothing is refreshing trackers)" : " (due now)",
    );
    // Just locked: due, but not overdue.
    await expect(page.getByTestId("tracker-overdue")).toHaveCount(0);
  });
}
