import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { site } from "./fixtures";

/** Refresh now streams its steps live before the outcome; the timeline narrows to a date range. */
const shop = (price: string) =>
  `<!doctype html><html><head><title>Acme pricing</title></head><body><main><h1>Pricing</h1>
<p>Pro plan <span id="price">${price}</span> per month</p></main></body></html>`;

const definition = {
  fields: [
    {
      name: "price",
      type: "number",
      description: "Pro plan monthly price",
      extractor: { kind: "css", selector: "#price" },
    },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

async function trackerWithHistory(request: APIRequestContext, path: string): Promise<string> {
  const tokenRes = await request.post("/api/trpc/apiToken.create", { data: { json: { name: "e2e progress" } } });
  expect(tokenRes.ok()).toBe(true);
  const token = (await tokenRes.json()).result.data.json.token as string;
  const headers = { authorization: `Bearer ${token}` };
  await site.setPage(path, { body: shop("100") });
  const created = await request.post("/api/v1/trackers", {
    headers,
    data: {
      decision: "Is Acme undercutting us?",
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor(path) },
      definition,
    },
  });
  expect(created.status()).toBe(201);
  const id = (await created.json()).tracker.id as string;
  const baseline = await request.post(`/api/v1/trackers/${id}/refresh`, { headers });
  expect((await baseline.json()).run.outcome).toBe("baseline");
  return id;
}

/** The browser's local calendar day, offset by `days`, as a date input value. */
const localDay = (page: Page, days: number) =>
  page.evaluate((offset) => {
    const d = new Date();
    d.setDate(d.getDate() + offset);
    const pad = (n: number) => String(n).padStart(2, "0");
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  }, days);

test("Refresh now lists its steps live, then the outcome; the timeline narrows to a date range", async ({ page }) => {
  const path = `/e2e-progress-${Date.now()}`;
  const id = await trackerWithHistory(page.request, path);

  await page.goto(`/trackers/${id}`);
  const entries = page.getByTestId("timeline-entry");
  await expect(entries).toHaveCount(1);

  // A slow page, so the crawl is observably in progress.
  await site.setPage(path, { body: shop("70"), delayMs: 1500 });
  await page.getByRole("button", { name: "Refresh now" }).click();
  const step = (name: string, status: string) =>
    page.locator(`[data-testid="refresh-step"][data-step="${name}"][data-status="${status}"]`);
  await expect(step("crawl", "running")).toBeVisible();
  await expect(step("lease", "ok")).toBeVisible();
  await expect(page.getByTestId("refresh-progress")).toHaveText("Fetching the source…");
  await expect(page.getByTestId("refresh-outcome")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Refreshing…" })).toBeDisabled();

  await expect(page.getByTestId("refresh-outcome")).toHaveText("material: price 100→70");
  await expect(page.getByTestId("refresh-progress")).toHaveCount(0);
  await expect(page.getByTestId("refresh-step")).toHaveText([
    /Claiming the tracker/,
    /Fetching the source/,
    /Checking whether anything changed/,
    /Reading the tracked fields/,
    /Comparing with the last record/,
    /Judging what changed/,
    /Saving/,
  ]);
  await expect(step("append", "ok")).toBeVisible();
  await expect(entries).toHaveCount(2);
  await expect(entries.first()).toContainText("100.0 → 70.0");

  // Date range: everything happened today.
  const range = page.getByTestId("timeline-range");
  const today = await localDay(page, 0);
  await range.getByLabel("From", { exact: true }).fill(today);
  await range.getByLabel("To", { exact: true }).fill(today);
  await expect(entries).toHaveCount(2);
  await range.getByLabel("From", { exact: true }).fill(await localDay(page, 1));
  await expect(page.getByTestId("timeline-range-error")).toBeVisible();
  await range.getByLabel("To", { exact: true }).fill("");
  await expect(page.getByTestId("timeline-empty")).toHaveText("No entries in this date range.");
  await expect(entries).toHaveCount(0);
  await range.getByLabel("From", { exact: true }).fill("");
  await range.getByLabel("To", { exact: true }).fill(await localDay(page, -1));
  await expect(entries).toHaveCount(0);
  await page.getByRole("button", { name: "Clear dates" }).click();
  await expect(entries).toHaveCount(2);
});

for (const viewport of [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
]) {
  test(`Refresh now whose connection gives way says so, and its run goes on to the runs log (${viewport.name})`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    const path = `/e2e-progress-dropped-${viewport.name}-${Date.now()}`;
    const id = await trackerWithHistory(page.request, path);
    await page.goto(`/trackers/${id}`);
    await site.setPage(path, { body: shop("70"), delayMs: 2000 });
    await page.getByRole("button", { name: "Refresh now" }).click();
    await expect(page.locator('[data-testid="refresh-step"][data-step="crawl"][data-status="running"]')).toBeVisible();
    await page.evaluate(() => window.stop()); // closes the page's open streams, as a connection that gives way
    const said = page.getByTestId("refresh-outcome");
    await expect(said).toHaveText("Connection lost. If the refresh started, its run shows in the runs log.");
    // All of it shows in the block's two lines (it is clamped there).
    expect(await said.evaluate((el) => el.scrollHeight <= el.clientHeight)).toBe(true);
    await expect(page.getByRole("button", { name: "Refresh now" })).toBeEnabled();
    // The crawl was running when the block stopped listening: not shown as still running, nor as done.
    await expect(page.locator('[data-testid="refresh-step"][data-step="crawl"]')).toHaveAttribute(
      "data-status",
      "unfollowed",
    );
    await expect(page.locator('[data-testid="refresh-step"][data-status="running"]')).toHaveCount(0);
    // The run went on without its listener: after the slow page answered, it is in the runs log and on the timeline.
    await expect(async () => {
      await page.reload();
      await expect(page.getByTestId("run-row")).toHaveCount(2, { timeout: 1_000 });
    }).toPass({ timeout: 15_000 });
    await expect(page.getByTestId("run-row").first()).toContainText("manual");
    await expect(page.getByTestId("timeline-entry")).toHaveCount(2);
  });
}

test("Refresh now whose stream drops and reopens says it is reconnecting, then shows the run's outcome", async ({
  page,
}) => {
  const path = `/e2e-progress-reconnect-${Date.now()}`;
  const id = await trackerWithHistory(page.request, path);
  await page.goto(`/trackers/${id}`);
  // A slow page, so the reopened stream is seen following the crawl before the outcome.
  await site.setPage(path, { body: shop("70"), delayMs: 1500 });
  // The first attempt of the stream is answered by an SSE stream that ends at once (as a proxy or a network that drops
  // the connection), asking EventSource to reopen it in 100 ms; the reopened one is held until the line is checked,
  // then goes to the app. EventSource reopens the same address, so the server sees the click's idempotency key.
  const attempts: string[] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/api/trpc/tracker.refreshProgress**", async (route) => {
    attempts.push(route.request().url());
    if (attempts.length === 1) {
      await route.fulfill({ status: 200, contentType: "text/event-stream", body: "retry: 100\n\n" });
      return;
    }
    await held;
    await route.continue();
  });
  await page.getByRole("button", { name: "Refresh now" }).click();
  const progress = page.getByTestId("refresh-progress");
  await expect(progress).toHaveText("Connection lost — reconnecting…");
  await expect(progress).toHaveAttribute("data-reconnecting", "true");
  await expect(page.getByRole("button", { name: "Refreshing…" })).toBeDisabled();
  await expect.poll(() => attempts.length).toBe(2);
  release();
  // Open again: the line follows the run's steps, no longer "reconnecting".
  await expect(progress).toHaveText("Fetching the source…");
  await expect(progress).not.toHaveAttribute("data-reconnecting", "true");
  await expect(page.getByTestId("refresh-outcome")).toHaveText("material: price 100→70");
  await expect(page.locator('[data-testid="refresh-step"][data-step="append"]')).toHaveAttribute("data-status", "ok");
  expect(attempts[1]).toBe(attempts[0]);
  await expect(page.getByTestId("run-row")).toHaveCount(2);
});
