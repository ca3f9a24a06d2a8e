import { expect, test } from "@playwright/test";
import { model, site } from "./fixtures";

/**
 * The slot flow end to end on the AI app: a calendar day's agenda card (`agenda:<day>`, docs/feed.md "Agenda"; its
 * source declares the day's slots) shows the event with empty slots, the fixture model's fills arrive over the SSE subscription without a reload, model text
 * renders as literal text, an invalid synthetic item is dropped, and an identical refresh makes no call.
 * (Tracker-change cards use the same Slot path; they are covered by tests/integration/feed-enhancement.test.ts.)
 */
test.use({ timezoneId: "UTC" });

/** The day an instant falls on in `zone`, as the agenda card's id writes it (2026-12-07). */
const dayIn = (d: Date, zone: string) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(d);

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
  // The enhancement prompt lists the feed's items by id: the dinner is a row on the card of the day it starts on, in
  // the person's zone (Settings, else the browser's — UTC here, as the server's), so the recorded fill names that card.
  const settings = (await (await page.request.get("/api/trpc/settings.feed")).json()).result.data.json as {
    timezone: string | null;
  };
  const dayCardId = `agenda:${dayIn(start, settings.timezone ?? "UTC")}`;
  // The briefing card has a slot, so the feed is enhanced while the calendar is still loading too: that input (no
  // day card yet) gets nothing to add; the one listing the day's card gets the fills.
  await model.setRecordings([
    {
      name: "feed-enhance",
      match: { schemaName: "feed_enhancement", user: `"id":"${dayCardId}"` },
      response: {
        latencyMs: 2500,
        json: {
          slotFills: [{ itemId: dayCardId, slot: "logistics", text: HOSTILE }],
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
    {
      name: "feed-enhance: the calendar is still loading",
      match: { schemaName: "feed_enhancement" },
      response: { json: { slotFills: [], syntheticItems: [], suppress: [], rankingHints: [] } },
    },
  ]);
  /** Enhancement calls: all of them, and those whose input lists the day's card. */
  const enhanceCalls = async () => {
    const calls = ((await model.requests()) as { summary?: { schemaName?: string; lastUser?: string } }[]).filter(
      (r) => r.summary?.schemaName === "feed_enhancement",
    );
    return { all: calls.length, day: calls.filter((r) => r.summary?.lastUser?.includes(`"id":"${dayCardId}"`)).length };
  };
  const before = await enhanceCalls();

  await page.goto("/settings");
  await page.getByLabel("Calendar (ICS URL)").fill(site.urlFor("/feed-e2e.ics"));
  await page.getByRole("button", { name: "Save feed settings" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();

  await page.goto("/");
  const card = page.locator(`[data-testid="feed-card"][data-item-id="${dayCardId}"]`);
  await expect(card).toHaveAttribute("data-item-type", "calendar-day");
  await expect(card.getByTestId("agenda-event").filter({ hasText: "Dinner with the Acme team" })).toHaveCount(1);
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
  // One call for the agenda's input, and at most one before it for the feed whose calendar was still loading.
  const filled = await enhanceCalls();
  expect(filled.day).toBe(before.day + 1);
  expect(filled.all - before.all).toBeGreaterThanOrEqual(1);
  expect(filled.all - before.all).toBeLessThanOrEqual(2);

  // Identical refresh: hash gate, no second model call (debounce is 500 ms; give it ample time).
  await page.getByTestId("feed-refresh").click();
  await expect(page.getByTestId("feed-refresh")).toHaveText("Refresh");
  await page.waitForTimeout(2_000);
  expect(await enhanceCalls()).toEqual(filled);
  await expect(card.getByTestId("slot-logistics")).toHaveText(HOSTILE);
});
