import { type APIRequestContext, expect, test } from "@playwright/test";
import { cssPriceDefinition } from "../fixtures/price-definition";
import { createApiToken } from "./api-token";
import { site } from "./fixtures";
import { SENTINELS } from "./sentinels";

/**
 * Notifications (docs/notifications.md) in the browser: a webhook channel added in Settings answers "Send test" with a signed POST the receiver
 * (the fixture site) accepted; a material change found by a refresh reaches the inbox, whose unread count clears.
 */

const shop = (price: string) => `<!doctype html><html><body><main><p id="price">${price}</p></main></body></html>`;

const createToken = (request: APIRequestContext) => createApiToken(request, "e2e notifications");

test("a webhook channel: add it, Send test, see it delivered (signed)", async ({ page }) => {
  const hookPath = `/e2e-hook-${Date.now()}`;
  await site.setPage(hookPath, { body: "ok", contentType: "text/plain" });
  await page.goto("/settings");
  const section = page.locator("#notifications");
  await section.getByLabel("Kind").selectOption("webhook");
  await section.getByLabel("URL").fill(site.urlFor(hookPath));
  await section.getByLabel("Name (optional)").fill("E2E hook");
  await section.getByRole("button", { name: "Add channel" }).click();
  await expect(page.getByTestId("new-channel-secret")).toHaveText(/^[0-9a-f]{64}$/);

  const row = page.getByTestId("notification-channel").filter({ hasText: "E2E hook" });
  await expect(row.getByTestId("channel-status")).toHaveText("never used");
  await row.getByRole("button", { name: "Send test" }).click();
  await expect(row.getByTestId("channel-status")).toHaveText("delivered");

  const posts = (await site.requests()).filter((r) => r.path === hookPath && r.method === "POST");
  expect(posts).toHaveLength(1);
  expect(posts[0]?.headers["x-bellwether-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
  expect(posts[0]?.status).toBe(200);
});

test("a material change reaches the inbox; its unread count clears", async ({ page }) => {
  const path = `/e2e-notify-${Date.now()}`;
  await site.setPage(path, { body: shop("$100.00") });
  const auth = { authorization: `Bearer ${await createToken(page.request)}` };
  const created = await page.request.post("/api/v1/trackers", {
    headers: auth,
    data: {
      decision: "Is the inbox telling me about price cuts?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(path) },
      definition: cssPriceDefinition(0.05),
    },
  });
  expect(created.status()).toBe(201);
  const id = (await created.json()).tracker.id as string;
  await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers: auth });
  await site.setPage(path, { body: shop("$80.00") });
  const cut = await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers: auth });
  expect((await cut.json()).run.outcome).toBe("material");
  // The scheduler's pass runs the notifications (outbox → inbox and channels).
  const cron = await page.request.post("/api/cron/refresh", {
    headers: { authorization: `Bearer ${SENTINELS.CRON_SECRET}` },
  });
  expect(cron.ok()).toBe(true);

  await page.goto("/inbox");
  await expect(page.getByTestId("inbox-unread")).toBeVisible();
  // Its accessible name holds what is seen ("Inbox" and the count), then "unread" for screen readers (label in name).
  await expect(page.getByRole("link", { name: /^Inbox (\d+|99\+) unread$/ })).toBeVisible();
  const item = page.getByTestId("inbox-item").filter({ hasText: "Is the inbox telling me about price cuts?" });
  await expect(item).toHaveAttribute("data-read", "false");
  await expect(item).toContainText("Price: $100.00 → $80.00 (−20%)");
  await page.getByRole("button", { name: "Mark all read" }).click();
  await expect(page.getByTestId("inbox-unread")).toHaveCount(0);
  await expect(item).toHaveAttribute("data-read", "true");

  await item.getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/trackers/${id}#change-`));
  await expect(page.locator(`li[id^="change-"]`).first()).toHaveAttribute("data-materiality", "material");
});
