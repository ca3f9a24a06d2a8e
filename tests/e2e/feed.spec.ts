import { expect, test } from "@playwright/test";
import { site } from "./fixtures";

/**
 * Rules mode: the feed works without a model. The calendar is an agenda (docs/feed.md, "Agenda"): the event is a row
 * on its day's card (`agenda:<day>`, the day in the person's zone), whose slots stay empty; a failing calendar is the
 * source's error chip next to the last good copy. The browser is in UTC, so a person without a zone in Settings has
 * the same days in the server's HTML, the browser's cookie and the feed's queries.
 */
test.use({ timezoneId: "UTC" });

/** The day (2026-12-07) and clock (14:30) of an instant in `zone`, as the agenda writes them. */
const dayIn = (d: Date, zone: string) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(d);
const clockIn = (d: Date, zone: string) =>
  new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(d);

test("rules mode: the feed works without a model — the event on its day's agenda card with empty slots, source errors as chips", async ({
  page,
}) => {
  const start = new Date(Date.now() + 5 * 3_600_000);
  const stamp = (d: Date) =>
    d
      .toISOString()
      .replace(/[-:]/g, "")
      .replace(/\.\d{3}/, "");
  await site.setPage("/feed-rules.ics", {
    contentType: "text/calendar",
    body: `BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:rules-standup\r\nSUMMARY:Team standup\r\nDTSTART:${stamp(start)}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`,
  });
  await page.goto("/settings");
  await page.getByLabel("Calendar (ICS URL)").fill(site.urlFor("/feed-rules.ics"));
  await page.getByRole("button", { name: "Save feed settings" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  // The person's zone: the one in Settings, else the browser's (UTC here).
  const settings = (await (await page.request.get("/api/trpc/settings.feed")).json()).result.data.json as {
    timezone: string | null;
  };
  const zone = settings.timezone ?? "UTC";

  // The first load answers from the (empty) calendar cache; the calendar is fetched after the response
  // (Next's after()) and the day's card arrives over the feed's live subscription.
  await page.goto("/");
  const card = page.locator(`[data-testid="feed-card"][data-item-id="agenda:${dayIn(start, zone)}"]`);
  await expect(card).toHaveAttribute("data-item-type", "calendar-day");
  const row = card.getByTestId("agenda-event").filter({ hasText: "Team standup" });
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId("agenda-time")).toHaveText(clockIn(start, zone));
  // The day's slots (context, logistics, weather) are declared but nothing fills them without a model.
  await expect(card.locator('[data-testid^="slot-"]')).toHaveCount(0);
  await expect(page.locator('[data-item-type="calendar-loading"]')).toHaveCount(0);

  // Refresh refetches the calendar in the background: its failure becomes the calendar's error chip, and the
  // last good copy stays on screen.
  await site.setPage("/feed-rules.ics", { status: 500, body: "down" });
  await page.getByTestId("feed-refresh").click();
  await expect(page.getByTestId("source-error")).toContainText("Calendar: The calendar URL answered 500");
  await expect(page.getByTestId("source-error")).toContainText("Showing the copy from");
  await expect(row).toHaveCount(1);
  await expect(card).toContainText("Team standup");
});
