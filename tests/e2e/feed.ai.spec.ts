import { expect, test } from "@playwright/test";
import { model, site } from "./fixtures";

/**
 * The slot flow end to end on the AI app: a calendar event card (its source declares slots) shows with
 * empty slots, the fixture model's fills arrive over the SSE subscription without a reload, model text
 * renders as literal text, an invalid synthetic item is dropped, and an identical refresh makes no call.
 * (Tracker-change cards use the same Slot path; they are covered by tests/integration/feed-enhancement.test.ts.)
 */
function icsDate(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

const HOSTILE = '<b>Leave by 18:40</b><script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2">';

test("slot text arrives live, renders as text, and the hash gate stops a second call", async ({ page }) => {
  const start = new Date(Date.now() + 3 * 3_600_000);
  const end = new Date(start.getTime() + 3_600_000);
  await site.setPage("/feed-e2e.ics", {
    contentType: "text/calendar",
    body: [
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "BEGIN:VEVENT",
      "UID:e2e-dinner",
      "SUMMARY:Dinner with the Acme team",
      `DTSTART:${icsDate(start)}`,
      `DTEND:${icsDate(end)}`,
      "LOCATION:The Ivy",
      "END:VEVENT",
      "END:VCALENDAR",
    ].join("\r\n"),
  });
  await model.setRecordings([
    {
      name: "feed-enhance",
      match: { schemaName: "feed_enhancement" },
      response: {
        latencyMs: 2500,
        json: {
          slotFills: [{ itemId: "event:e2e-dinner", slot: "logistics", text: HOSTILE }],
          syntheticItems: [
            {
              id: "good-brief",
              type: "briefing",
              uiJson: JSON.stringify({
                root: "r",
                elements: { r: { type: "Text", props: { text: "Quiet day; dinner tonight." }, children: [] } },
              }),
            },
            {
              id: "bad-brief",
              type: "briefing-bad",
              uiJson: JSON.stringify({
                root: "r",
                elements: { r: { type: "Iframe", props: { src: "x" }, children: [] } },
              }),
            },
          ],
          suppress: [],
          rankingHints: [],
        },
      },
    },
  ]);
  const enhanceCalls = async () =>
    ((await model.requests()) as { summary?: { schemaName?: string } }[]).filter(
      (r) => r.summary?.schemaName === "feed_enhancement",
    ).length;
  const before = await enhanceCalls();

  await page.goto("/settings");
  await page.getByLabel("Calendar (ICS URL)").fill(site.urlFor("/feed-e2e.ics"));
  await page.getByRole("button", { name: "Save feed settings" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();

  await page.goto("/");
  const card = page.locator('[data-testid="feed-card"][data-item-id="event:e2e-dinner"]');
  await expect(card).toContainText("Dinner with the Acme team");
  // Before the model answers (it takes 2.5 s), the slot area is empty.
  await expect(card.getByTestId("slot-logistics")).toHaveCount(0);
  await page.evaluate(() => {
    (window as unknown as { __noReload: boolean }).__noReload = true;
  });

  // The fill arrives over SSE: same document (marker survives), literal text, no script ran.
  await expect(card.getByTestId("slot-logistics")).toHaveText(HOSTILE, { timeout: 20_000 });
  expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await expect(card.locator("script, img, b")).toHaveCount(0);
  await expect(card.getByTestId("slot-weather")).toHaveCount(0);

  // Synthetic items: the valid one shows, the one whose UI fails the catalog is dropped.
  await expect(page.locator('[data-item-id="synthetic:good-brief"]')).toContainText("Quiet day; dinner tonight.");
  await expect(page.locator('[data-item-type="briefing-bad"]')).toHaveCount(0);
  expect(await enhanceCalls()).toBe(before + 1);

  // Identical refresh: hash gate, no second model call (debounce is 500 ms; give it ample time).
  await page.getByTestId("feed-refresh").click();
  await expect(page.getByTestId("feed-refresh")).toHaveText("Refresh");
  await page.waitForTimeout(2_000);
  expect(await enhanceCalls()).toBe(before + 1);
  await expect(card.getByTestId("slot-logistics")).toHaveText(HOSTILE);
});
