import { type APIRequestContext, expect, type Locator, type Page, test } from "@playwright/test";
import { ACME_PRICING_DEFINITION, acmePricingPage } from "../fixtures/acme-pricing";
import { createApiToken } from "./api-token";
import { site } from "./fixtures";

/**
 * The tracker page (docs/trackers.md, "The tracker page") at desktop and phone widths: it follows its tracker live — a refresh made
 * through the public API (as an integration or cron would) lands on the open page without a reload, announced
 * politely; charts have a time and a value axis with a tooltip per point; numbers read as money; the runs log
 * shows five runs and "Show all"; the definition version is not repeated on every entry; on a phone the state and
 * timeline come before runs and definition; the page's title is its decision; Refresh now keeps its size, and its
 * outcome gives way to a later run's (another tab's) once that run has ended.
 */
const shop = acmePricingPage;
const definition = ACME_PRICING_DEFINITION;

async function trpc(request: APIRequestContext, path: string, input: unknown): Promise<Record<string, string>> {
  const res = await request.post(`/api/trpc/${path}`, { data: { json: input } });
  expect(res.ok(), `${path}: ${await res.text()}`).toBe(true);
  return (await res.json()).result.data.json;
}

const createToken = (request: APIRequestContext) => createApiToken(request, "e2e tracker page");

/** A tracker with a baseline and six unchanged checks (seven runs), made and refreshed through the public API. */
async function trackerWithRuns(request: APIRequestContext, path: string, decision: string) {
  await site.setPage(path, { body: shop("$100.00", "4.0") });
  const headers = { authorization: `Bearer ${await createToken(request)}` };
  const created = await request.post("/api/v1/trackers", {
    headers,
    data: { decision, capability: "web.scrape", capabilityInput: { url: site.urlFor(path) }, definition },
  });
  expect(created.status()).toBe(201);
  const id = (await created.json()).tracker.id as string;
  const refresh = async () => (await (await request.post(`/api/v1/trackers/${id}/refresh`, { headers })).json()).run;
  expect((await refresh()).outcome).toBe("baseline");
  for (let i = 0; i < 6; i++) expect((await refresh()).outcome).toBe("unchanged");
  return { id, refresh };
}

const top = async (locator: Locator) => (await locator.boundingBox())?.y ?? Number.NaN;
const left = async (locator: Locator) => (await locator.boundingBox())?.x ?? Number.NaN;

async function openLive(page: Page, id: string): Promise<void> {
  await page.goto(`/trackers/${id}`);
  await expect(page.getByTestId("tracker-page")).toHaveAttribute("data-live", "live");
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test("a refresh made through the API lands on the open page without a reload", async ({ page }) => {
      const decision = `Is Acme undercutting our Pro plan? (${viewport.width} px)`;
      const path = `/e2e-live-${viewport.width}-${Date.now()}`;
      const { id, refresh } = await trackerWithRuns(page.request, path, decision);

      await openLive(page, id);
      await expect(page).toHaveTitle(`${decision} · Bellwether`);
      const entries = page.getByTestId("timeline-entry");
      await expect(entries).toHaveCount(1);
      await expect(page.getByTestId("state-field-price")).toHaveText("$100.00");
      await expect(page.getByTestId("state-field-rating")).toHaveText("4.0"); // a decimal keeps its decimal
      await expect(page.getByTestId("timeline-version")).toHaveCount(0); // one version: not repeated per entry

      // Runs: the last five, then all seven.
      const runs = page.getByTestId("run-row");
      await expect(runs).toHaveCount(5);
      await page.getByRole("button", { name: "Show all" }).click();
      await expect(runs).toHaveCount(7);
      await expect(page.getByRole("button", { name: "Show the last five" })).toHaveAttribute("aria-expanded", "true");

      // Nothing below may reload the page.
      await page.evaluate(() => {
        (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
      });

      // Unchanged, from the API: "last checked" and the runs move; the page says so.
      expect((await refresh()).outcome).toBe("unchanged");
      await expect(page.getByTestId("tracker-live-status")).toHaveText(/^Checked just now — no change/);
      await expect(runs).toHaveCount(8);
      await expect(entries).toHaveCount(1);

      // Material, from the API: a new timeline entry, the state, the chart and the runs update in place.
      await site.setPage(path, { body: shop("$80.00", "4.0") });
      expect((await refresh()).outcome).toBe("material");
      await expect(page.getByTestId("tracker-live-status")).toHaveText(/^New change recorded/);
      await expect(entries).toHaveCount(2);
      await expect(entries.first()).toHaveAttribute("data-materiality", "material");
      await expect(entries.first()).toContainText("$100.00 → $80.00 (−20%)");
      await expect(page.getByTestId("state-field-price")).toHaveText("$80.00");
      await expect(page.getByTestId("chart-price")).toHaveAttribute("data-points", "2");
      await expect(runs).toHaveCount(9);
      await expect(runs.first()).toHaveAttribute("data-status", "completed");
      await expect(runs.first()).toContainText("material: price");

      // A second definition version: named once, on the first entry judged under it — not on every entry.
      const { sessionId } = await trpc(page.request, "setup.openEdit", { trackerId: id });
      await trpc(page.request, "setup.saveDraft", {
        sessionId,
        definition: {
          ...definition,
          materiality: { ...definition.materiality, price: { kind: "numeric", relative: 0.1 } },
        },
      });
      await trpc(page.request, "setup.lock", { sessionId });
      await site.setPage(path, { body: shop("$60.00", "4.0") });
      expect((await refresh()).outcome).toBe("material");
      await expect(entries).toHaveCount(3);
      await expect(page.getByTestId("timeline-version")).toHaveCount(1);
      await expect(entries.first().getByTestId("timeline-version")).toHaveText("definition v2 from here");
      expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);

      // The chart: a time axis and a value axis with ticks, material points marked, a tooltip per point.
      const chart = page.getByTestId("chart-price");
      await chart.scrollIntoViewIfNeeded();
      const timeTicks = chart.locator(".chart-axis-time .visx-axis-tick");
      const valueTicks = chart.locator(".chart-axis-value .visx-axis-tick");
      await expect.poll(() => timeTicks.count()).toBeGreaterThanOrEqual(2);
      await expect.poll(() => valueTicks.count()).toBeGreaterThanOrEqual(2);
      await expect(valueTicks.first()).toHaveText(/^\$\d+\.\d{2}$/);
      // Every time label lies inside the plot's SVG (the last one is not cut at the right edge).
      const svg = await chart.getByTestId("chart-svg").boundingBox();
      for (const label of await chart.locator(".chart-axis-time .visx-axis-tick text").all()) {
        const box = await label.boundingBox();
        expect(box && svg && box.x + box.width <= svg.x + svg.width + 0.5).toBe(true);
      }
      await expect(chart.locator('[data-testid="chart-point"][data-materiality="material"]')).toHaveCount(2);
      await chart.locator('[data-testid="chart-point"][data-materiality="material"]').first().hover();
      const tooltip = chart.getByTestId("chart-tooltip");
      await expect(tooltip).toContainText("$80.00");
      await expect(tooltip).toContainText("material change");
      // By keyboard: focus the chart, Home reads the first point.
      await chart.getByRole("slider").focus();
      await page.keyboard.press("Home");
      await expect(chart.getByRole("slider")).toHaveAttribute("aria-valuetext", /\$100\.00 \(first record\)$/);
    });

    test("order and layout: state and timeline before runs and definition on a phone; Refresh now keeps its size", async ({
      page,
    }) => {
      const path = `/e2e-layout-${viewport.width}-${Date.now()}`;
      const { id } = await trackerWithRuns(page.request, path, `Layout check at ${viewport.width} px`);
      // Layout shifts while the page loads and hydrates (the data arrives with the HTML; charts draw into fixed boxes).
      await page.addInitScript(() => {
        const w = window as unknown as { __shift: number };
        w.__shift = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) {
            if (!entry.hadRecentInput) w.__shift += entry.value;
          }
        }).observe({ type: "layout-shift", buffered: true });
      });
      await openLive(page, id);
      await expect(page.getByTestId("chart-price").getByTestId("chart-svg")).toBeVisible();
      expect(await page.evaluate(() => (window as unknown as { __shift: number }).__shift)).toBeLessThan(0.02);
      const state = page.getByTestId("tracker-state");
      const charts = page.getByTestId("tracker-charts");
      const timeline = page.getByTestId("tracker-timeline");
      const runs = page.getByTestId("tracker-runs");
      const definitionCard = page.getByTestId("tracker-definition");
      if (viewport.width < 1024) {
        const ys = [
          await top(state),
          await top(charts),
          await top(timeline),
          await top(runs),
          await top(definitionCard),
        ];
        expect(ys).toEqual([...ys].sort((a, b) => a - b));
      } else {
        // A side column: state and definition to the right of the charts, timeline and runs.
        expect(await left(state)).toBeGreaterThan(await left(timeline));
        expect(await top(state)).toBeLessThan(await top(timeline));
        expect(await top(definitionCard)).toBeGreaterThan(await top(state));
        expect(await top(definitionCard)).toBeLessThan(await top(runs));
      }

      // Refresh now: the button keeps its width while it runs; the progress line only moves forward.
      const button = page.getByRole("button", { name: "Refresh now" });
      const before = (await button.boundingBox())?.width;
      await site.setPage(path, { body: shop("$100.00", "4.0"), delayMs: 1200 });
      await button.click();
      const running = page.getByRole("button", { name: "Refreshing…" });
      await expect(running).toBeDisabled();
      expect((await running.boundingBox())?.width).toBe(before);
      const seen: string[] = [];
      const progress = page.getByTestId("refresh-progress");
      while ((await page.getByTestId("refresh-outcome").count()) === 0) {
        const step = await progress.getAttribute("data-step", { timeout: 1000 }).catch(() => null);
        if (step && seen.at(-1) !== step) seen.push(step);
        await page.waitForTimeout(25);
      }
      const order = ["lease", "crawl", "precheck", "fill", "diff", "judge", "append"];
      const indexes = seen.map((s) => order.indexOf(s));
      expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
      await expect(page.getByTestId("refresh-outcome")).toHaveText("no change");
      expect((await page.getByRole("button", { name: "Refresh now" }).boundingBox())?.width).toBe(before);
    });
  });
}

test.describe("two tabs at phone width", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("Refresh now's outcome gives way when a later run, from another tab, records a change", async ({
    page,
    context,
  }) => {
    const path = `/e2e-two-tabs-${Date.now()}`;
    const { id } = await trackerWithRuns(page.request, path, "Is Acme cheaper than us yet? (two tabs)");
    const tabA = page;
    const tabB = await context.newPage();
    await openLive(tabA, id);
    await openLive(tabB, id);

    // Tab A: only an untracked part of the page moved, so the fields are read and none changed.
    await site.setPage(path, {
      body: shop("$100.00", "4.0").replace("<h1>Pricing</h1>", "<h1>Pricing</h1><p>Spring offers soon</p>"),
    });
    await tabA.getByRole("button", { name: "Refresh now" }).click();
    const outcomeA = tabA.getByTestId("refresh-outcome");
    await expect(outcomeA).toHaveText("no tracked field changed");
    // Its own run's `checked` reaches both tabs; in tab A it leaves the answer as it is.
    await expect(tabA.getByTestId("tracker-live-status")).toHaveText(/^Checked just now — no change/);
    await expect(tabB.getByTestId("tracker-live-status")).toHaveText(/^Checked just now — no change/);
    await expect(outcomeA).toHaveText("no tracked field changed");
    const feedbackA = tabA.getByTestId("refresh-feedback");
    const heightBefore = (await feedbackA.boundingBox())?.height;

    // Tab B: the price fell; its run records a material change.
    await site.setPage(path, { body: shop("$80.00", "4.0") });
    await tabB.getByRole("button", { name: "Refresh now" }).click();
    await expect(tabB.getByTestId("refresh-outcome")).toHaveText(/^material: price/);

    // Tab A follows: the page shows the change, and its Refresh now line no longer contradicts it.
    await expect(tabA.getByTestId("tracker-live-status")).toHaveText(/^New change recorded/);
    await expect(tabA.getByTestId("timeline-entry").first()).toContainText("$100.00 → $80.00");
    await expect(outcomeA).not.toHaveText("no tracked field changed");
    await expect(outcomeA).toHaveText("Since then, another run recorded a new change");
    await expect(outcomeA).toHaveAttribute("data-outcome", "material");
    // The block keeps its size (its own run's steps give their room to the later run's line).
    expect((await feedbackA.boundingBox())?.height).toBe(heightBefore);
    // Tab B's answer is the latest run's: it stays.
    await expect(tabB.getByTestId("refresh-outcome")).toHaveText(/^material: price/);
    await tabB.close();
  });
});

test("without JavaScript the page still shows its state, timeline and runs (rendered on the server)", async ({
  page,
  browser,
}) => {
  const { id } = await trackerWithRuns(page.request, `/e2e-nojs-${Date.now()}`, "Readable without JavaScript?");
  const context = await browser.newContext({
    javaScriptEnabled: false,
    storageState: await page.context().storageState(),
  });
  try {
    const plain = await context.newPage();
    await plain.goto(`/trackers/${id}`);
    await expect(plain.getByTestId("tracker-decision")).toHaveText("Readable without JavaScript?");
    await expect(plain.getByTestId("timeline-entry")).toHaveCount(1);
    await expect(plain.getByTestId("timeline-entry")).toContainText("Price $100.00");
    await expect(plain.getByTestId("state-field-price")).toHaveText("$100.00");
    await expect(plain.getByTestId("run-row")).toHaveCount(5);
    await expect(plain.getByTestId("chart-price")).toContainText("now $100.00");
  } finally {
    await context.close();
  }
});

test("an unknown tracker id is a real 404, on its edit page too", async ({ page }) => {
  const response = await page.goto("/trackers/no-such-tracker");
  expect(response?.status()).toBe(404);
  const edit = await page.goto("/trackers/no-such-tracker/edit");
  expect(edit?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(/not found/i);
});
