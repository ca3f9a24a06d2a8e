import { type APIRequestContext, expect, test } from "@playwright/test";
import { createApiToken } from "./api-token";
import { site } from "./fixtures";

/**
 * The tracker page: timeline, charts, runs, definition, and Refresh now. The tracker is created the
 * way an integration would, through the public API with a token made by the settings' tRPC mutation.
 */
const shop = (price: string, rating: string) =>
  `<!doctype html><html><head><title>Acme pricing</title></head><body><main><h1>Pricing</h1>
<p>Pro plan <span id="price">${price}</span> per month</p><p>Rated <b id="rating">${rating}</b></p></main></body></html>`;

const definition = {
  fields: [
    {
      name: "price",
      type: "number",
      description: "Pro plan monthly price",
      extractor: { kind: "css", selector: "#price" },
    },
    { name: "rating", type: "number", description: "Customer rating", extractor: { kind: "css", selector: "#rating" } },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 }, rating: { kind: "numeric", absolute: 0.2 } },
};

const createToken = (request: APIRequestContext) => createApiToken(request, "e2e timeline");

test("a tracker with history shows its timeline, charts and runs; Refresh now adds a material entry and a point", async ({
  page,
}) => {
  const path = `/e2e-timeline-${Date.now()}`;
  await site.setPage(path, { body: shop("100", "4.5") });
  const token = await createToken(page.request);
  const auth = { authorization: `Bearer ${token}` };

  const created = await page.request.post("/api/v1/trackers", {
    headers: auth,
    data: {
      decision: "Is Acme undercutting our Pro plan?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(path) },
      definition,
    },
  });
  expect(created.status()).toBe(201);
  const id = (await created.json()).tracker.id as string;

  // History: the baseline, then a material price cut.
  const baseline = await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers: auth });
  expect((await baseline.json()).run.outcome).toBe("baseline");
  await site.setPage(path, { body: shop("90", "4.5") });
  const cut = await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers: auth });
  expect((await cut.json()).run.summary).toBe("material: price 100→90");

  await page.goto(`/trackers/${id}`);
  await expect(page.getByTestId("tracker-decision")).toHaveText("Is Acme undercutting our Pro plan?");
  const entries = page.getByTestId("timeline-entry");
  await expect(entries).toHaveCount(2);
  await expect(entries.first()).toHaveAttribute("data-materiality", "material");
  await expect(entries.first()).toContainText("100.0 → 90.0 (−10%)");
  await expect(entries.first()).toContainText("decided by a rule");
  await expect(entries.nth(1)).toHaveAttribute("data-materiality", "baseline");
  await expect(page.getByTestId("chart-price")).toHaveAttribute("data-points", "2");
  await expect(page.getByTestId("chart-price").locator('[data-materiality="material"]')).toHaveCount(1);
  await expect(page.getByTestId("run-row")).toHaveCount(2);
  // Both runs saw new content: two captures kept for replaying definition edits (docs/replay.md).
  const storedHistory = page.getByTestId("stored-history");
  await expect(storedHistory).toHaveAttribute("data-captures", "2");
  await expect(storedHistory).toHaveText(
    /^Stored history: 2 captures · \d+(\.\d)? (B|KB) \(for replaying definition edits\)$/,
  );
  await expect(page.getByTestId("state-field-price")).toHaveText("90.0"); // a decimal field keeps its decimal
  const locked = page.getByTestId("locked-definition");
  await expect(locked).toContainText("v1");
  await expect(locked.getByTestId("definition-field-price")).toContainText("price");
  await expect(locked.getByTestId("definition-field-price")).toContainText("number");
  await expect(page.getByRole("link", { name: "Edit definition" })).toHaveAttribute("href", `/trackers/${id}/edit`);

  // The run's per-step detail opens from the runs log.
  await page.getByTestId("run-row").first().locator("summary").click();
  await expect(page.getByTestId("run-row").first()).toContainText("crawl");

  // Change the page (slowly, so the progress is visible) and refresh from the UI.
  await site.setPage(path, { body: shop("70", "4.5"), delayMs: 1500 });
  await page.getByRole("button", { name: "Refresh now" }).click();
  await expect(page.getByTestId("refresh-progress")).toBeVisible();
  await expect(page.getByTestId("refresh-outcome")).toHaveText("material: price 90→70");
  await expect(page.getByTestId("refresh-progress")).toHaveCount(0);
  await expect(entries).toHaveCount(3);
  await expect(entries.first()).toHaveAttribute("data-materiality", "material");
  await expect(entries.first()).toContainText("90.0 → 70.0");
  await expect(page.getByTestId("chart-price")).toHaveAttribute("data-points", "3");
  await expect(page.getByTestId("run-row")).toHaveCount(3);
  await expect(page.getByTestId("run-row").first()).toContainText("manual");
  await expect(storedHistory).toHaveAttribute("data-captures", "3");

  // Noise: a small rating wobble is not a timeline entry.
  await site.setPage(path, { body: shop("70", "4.4") });
  await page.getByRole("button", { name: "Refresh now" }).click();
  await expect(page.getByTestId("refresh-outcome")).toHaveText("noise: rating 4.5→4.4");
  await expect(entries).toHaveCount(3);

  // The list shows it, with its last material change.
  await page.goto("/trackers");
  const row = page.getByTestId("tracker-row").filter({ has: page.locator(`a[href="/trackers/${id}"]`) });
  await expect(row.getByTestId("tracker-status")).toHaveText("active");
  await expect(row.getByTestId("tracker-last-change")).toContainText("Last material change");
  await page.getByLabel("Show").selectOption("failing");
  await expect(page.locator(`a[href="/trackers/${id}"]`)).toHaveCount(0);
});

test("a failing tracker shows as failing with its last error; pause and resume work", async ({ page }) => {
  const path = `/e2e-failing-${Date.now()}`;
  await site.setPage(path, { status: 500, body: "Internal Server Error" });
  const token = await createToken(page.request);
  const auth = { authorization: `Bearer ${token}` };
  const created = await page.request.post("/api/v1/trackers", {
    headers: auth,
    data: {
      decision: "Is the supplier page up?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(path) },
      definition,
    },
  });
  const id = (await created.json()).tracker.id as string;
  for (let i = 0; i < 3; i++) {
    const res = await page.request.post(`/api/v1/trackers/${id}/refresh`, { headers: auth });
    expect((await res.json()).run.status).toBe("failed");
  }
  await page.goto(`/trackers/${id}`);
  await expect(page.getByTestId("tracker-status")).toHaveText("failing");
  await expect(page.getByTestId("tracker-failing")).toContainText("500");

  await page.getByRole("button", { name: "Pause" }).click();
  await expect(page.getByTestId("tracker-status")).toHaveText("paused");
  await page.getByRole("button", { name: "Resume" }).click();
  await expect(page.getByRole("button", { name: "Pause" })).toBeVisible();
  await page.getByLabel("Schedule").selectOption({ label: "Daily" });
  await expect(page.getByText(/^daily ·/)).toBeVisible();
});

test("Settings → API tokens: a token is shown once, works with the public API, and stops working when revoked", async ({
  page,
}) => {
  const name = `e2e settings token ${Date.now()}`;
  await page.goto("/settings");
  const section = page.getByRole("region", { name: "API tokens" });
  await section.getByLabel("Token name").fill(name);
  await section.getByRole("button", { name: "Create token" }).click();
  const token = (await section.getByTestId("new-api-token").textContent())?.trim() ?? "";
  expect(token).toMatch(/^bw_/);
  const row = section.getByTestId("api-token-row").filter({ hasText: name });
  await expect(row).toContainText(token.slice(0, 10));

  const ok = await page.request.get("/api/v1/trackers", { headers: { authorization: `Bearer ${token}` } });
  expect(ok.status()).toBe(200);

  await page.reload();
  await expect(page.getByTestId("new-api-token")).toHaveCount(0); // never shown again
  await page.getByTestId("api-token-row").filter({ hasText: name }).getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByTestId("api-token-row").filter({ hasText: name })).toContainText("revoked");
  const revoked = await page.request.get("/api/v1/trackers", { headers: { authorization: `Bearer ${token}` } });
  expect(revoked.status()).toBe(401);
});
