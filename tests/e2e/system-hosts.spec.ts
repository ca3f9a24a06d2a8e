import { expect, test } from "@playwright/test";
import { createApiToken, createPricePageTracker } from "./api-token";
import { site } from "./fixtures";

/**
 * The System page's politeness per host (docs/scheduling.md), as the owner sees it in Chromium at desktop and phone
 * widths: the limits every host gets, and, once a tracker's page was read, its host among the busiest with the
 * requests of the last minute. No spec makes a host answer 429/503 with Retry-After (it would hold the fixture host
 * for every spec), so nothing is backed off; the held list is rendered in tests/unit/system-hosts-section.test.ts.
 */

for (const viewport of [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
]) {
  test(`System shows the limits per host and the hosts being read (${viewport.name})`, async ({ page }) => {
    await page.setViewportSize(viewport);
    const token = await createApiToken(page.request, `e2e hosts ${viewport.name}`);
    const headers = { authorization: `Bearer ${token}` };
    const path = `/e2e-system-hosts-${viewport.name}-${Date.now()}`;
    const id = await createPricePageTracker(page.request, token, path);
    const refreshed = await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers });
    expect(refreshed.ok(), await refreshed.text()).toBe(true);
    expect((await refreshed.json()).run.status).toBe("completed");
    expect((await site.requests()).filter((r) => r.path === path).length).toBeGreaterThan(0);

    await page.goto("/system");
    const hosts = page.getByRole("region", { name: "Politeness per host" });
    await expect(hosts.getByTestId("system-hosts-limits")).toContainText(
      /\d+ requests? in flight per host at most, starting at least \d+(\.\d)? m?s apart/,
    );
    // The fixture site's host was asked within the last minute (the refresh above), so it is among the busiest.
    const busiest = hosts.getByTestId("system-hosts-busiest");
    await expect(busiest).toContainText(new URL(site.url).host);
    await expect(busiest).toContainText(/[1-9]\d* requests? in the last minute/);
    await expect(hosts.getByTestId("system-hosts-held")).toContainText("No host has asked us to wait.");
    // Nothing in the section runs off a phone's screen.
    const overflow = await hosts.evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
}
