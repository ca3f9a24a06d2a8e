import { expect, test } from "@playwright/test";
import { site } from "./fixtures";

test("rules mode: the feed works without a model — calendar cards with empty slots, source errors as chips", async ({
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

  // The first load answers from the (empty) calendar cache; the calendar is fetched after the response
  // (Next's after()) and the card arrives over the feed's live subscription.
  await page.goto("/");
  const card = page.locator('[data-testid="feed-card"][data-item-id="event:rules-standup"]');
  await expect(card).toContainText("Team standup");
  await expect(card.locator('[data-testid^="slot-"]')).toHaveCount(0);
  await expect(page.locator('[data-item-type="calendar-loading"]')).toHaveCount(0);

  // Refresh refetches the calendar in the background: its failure becomes the calendar's error chip, and the
  // last good copy stays on screen.
  await site.setPage("/feed-rules.ics", { status: 500, body: "down" });
  await page.getByTestId("feed-refresh").click();
  await expect(page.getByTestId("source-error")).toContainText("Calendar: The calendar URL answered 500");
  await expect(page.getByTestId("source-error")).toContainText("Showing the copy from");
  await expect(card).toContainText("Team standup");
});
