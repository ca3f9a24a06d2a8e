import { expect, type Page, test } from "@playwright/test";
import { model, site } from "./fixtures";
import { SETUP_PRICING_HTML } from "./setup-pages";
import { setupRecordings } from "./setup-recordings";

/**
 * AI app, through the app only: the drafter sets up a tracker (recorded conversation), a refresh records a
 * material change, the feed shows its card with empty slots; once the fixture model's enhancement answers,
 * the "why" slot fills in WITHOUT a reload; an identical refresh makes no further model call.
 */
async function refresh(page: Page, trackerId: string) {
  const res = await page.request.post("/api/trpc/tracker.refresh", { data: { json: { trackerId } } });
  expect(res.ok(), await res.text()).toBe(true);
  return (await res.json()) as { result: { data: { json: { outcome: string } } } };
}

/** Enhancement calls whose prompt carries `text` (the person's notes are part of every enhancement's input). */
async function enhanceCallsWith(text: string) {
  const requests = (await model.requests()) as { summary?: { schemaName?: string; lastUser?: string } }[];
  return requests.filter((r) => r.summary?.schemaName === "feed_enhancement" && r.summary.lastUser?.includes(text))
    .length;
}

test("AI: a tracker's material change card gets its slot text live, and the hash gate holds", async ({ page }) => {
  await site.setPage("/setup/acme/pricing", { body: SETUP_PRICING_HTML });
  // The refreshes below enhance the owner's feed in the background (docs/design.md §6) whenever the owner is active; answered
  // with nothing to add, so no failed call (and its one-minute backoff) decides what the rest of the spec sees.
  await model.setRecordings([
    ...setupRecordings(site.url),
    {
      name: "feed enhancement: nothing to add yet",
      match: { schemaName: "feed_enhancement" },
      response: { json: { slotFills: [], syntheticItems: [], suppress: [], rankingHints: [] } },
    },
  ]);

  await page.goto("/trackers/new");
  await page
    .getByTestId("setup-input")
    .fill(`Tell me if Acme's pricing page undercuts our $49 plan — ${site.urlFor("/setup/acme/pricing")}`);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("draft-card")).toHaveAttribute("data-state", "saved");
  await page.getByTestId("setup-input").fill("looks good");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page).toHaveURL(/\/trackers\/(?!new)[^/?]+$/);
  const trackerId = new URL(page.url()).pathname.split("/").at(-1) as string;
  expect((await refresh(page, trackerId)).result.data.json.outcome).toBe("baseline");

  await site.setPage("/setup/acme/pricing", {
    body: SETUP_PRICING_HTML.replace('"45.00"', '"39.00"').replace("$45", "$39"),
  });
  expect((await refresh(page, trackerId)).result.data.json.outcome).toBe("material");

  await page.goto("/");
  const card = page
    .locator('[data-testid="feed-card"][data-item-type="tracker-change"]')
    .filter({ has: page.locator(`a[href="/trackers/${trackerId}"]`) });
  await expect(card).toBeVisible();
  await expect(card.getByTestId("change-row").first()).toBeVisible();
  // Nothing filled yet: the slot area is empty.
  await expect(card.locator('[data-testid^="slot-"]')).toHaveCount(0);
  const itemId = (await card.getAttribute("data-item-id")) as string;

  // Now the model has an answer for this item (its id is only known once the change exists).
  await model.setRecordings([
    {
      name: "feed-enhance-tracker",
      match: { schemaName: "feed_enhancement" },
      response: {
        latencyMs: 1500,
        json: {
          slotFills: [{ itemId, slot: "why", text: "Acme now sits $10 below your $49 plan." }],
          syntheticItems: [],
          suppress: [],
          rankingHints: [],
        },
      },
    },
  ]);
  // A new note in the person's memory changes the enhancement's input, so the next load asks the model again. Loads
  // read before the edit may still be in the debounce and call once more for the old input (the refreshes' background
  // enhancements, this page's first loads): counted apart, by this run's own note in the prompt.
  const note = `We price the Pro plan at $49 (note ${Date.now().toString(36)}).`;
  const feedSettings = await page.request.get("/api/trpc/settings.feed");
  expect(feedSettings.ok()).toBe(true);
  const { locationName, latitude, longitude, timezone, calendarUrl, memory } = (await feedSettings.json()).result.data
    .json;
  const updated = await page.request.post("/api/trpc/settings.updateFeed", {
    data: {
      json: {
        locationName,
        latitude,
        longitude,
        timezone,
        calendarUrl,
        memory: `${memory ?? ""}\n${note}`.trim(),
      },
    },
  });
  expect(updated.ok(), await updated.text()).toBe(true);
  await page.evaluate(() => {
    (window as unknown as { __noReload: boolean }).__noReload = true;
  });
  await page.getByTestId("feed-refresh").click();
  await expect(card.getByTestId("slot-why")).toHaveText("Acme now sits $10 below your $49 plan.", {
    timeout: 20_000,
  });
  expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
  // The new input was sent once, however many loads and background rebuilds asked for it.
  await expect.poll(() => enhanceCallsWith(note), { timeout: 10_000 }).toBe(1);

  // Identical refresh → same hash → no model call (every input since the edit carries the note).
  await page.getByTestId("feed-refresh").click();
  await expect(page.getByTestId("feed-refresh")).toHaveText("Refresh");
  await page.waitForTimeout(2_000);
  expect(await enhanceCallsWith(note)).toBe(1);
});
