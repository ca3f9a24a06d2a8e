import { type APIRequestContext, expect, type Locator, type Page, test } from "@playwright/test";
import { auditPage } from "./a11y";
import { E2E_URLS, site } from "./fixtures";
import { OWNER_STATE } from "./owner";

/**
 * The feed's agenda (docs/feed.md, "Agenda", "Order", "Time zone"): a calendar with a daily standup reads as one card
 * per day, the standup once in each, in time order, the weather right after today's card. Settings says Asia/Tokyo
 * while the browser is in Los Angeles: the server's HTML already shows Tokyo times, and hydration changes no text.
 * The app itself runs in UTC (playwright.config.ts), a third zone.
 */
test.use({ timezoneId: "America/Los_Angeles" });

const ZONE = "Asia/Tokyo";
const DAY_MS = 86_400_000;
const pad = (n: number) => String(n).padStart(2, "0");

/** The day `offset` days from today in Tokyo, as the ICS writes it (20261207) and as the card ids do (2026-12-07). */
function tokyoDay(offset: number): { ics: string; key: string } {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone: ZONE, year: "numeric", month: "2-digit", day: "2-digit" })
    .format(new Date(Date.now() + offset * DAY_MS))
    .split("-");
  const [y, m, d] = parts;
  const today = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d) + offset - offset));
  const shifted = new Date(today.getTime());
  return {
    ics: `${shifted.getUTCFullYear()}${pad(shifted.getUTCMonth() + 1)}${pad(shifted.getUTCDate())}`,
    key: `${shifted.getUTCFullYear()}-${pad(shifted.getUTCMonth() + 1)}-${pad(shifted.getUTCDate())}`,
  };
}

const event = (uid: string, summary: string, ...props: string[]) =>
  ["BEGIN:VEVENT", `UID:${uid}`, `SUMMARY:${summary}`, ...props, "END:VEVENT"].join("\r\n");

/** A daily standup since three days ago; tomorrow a review and, written after it, an earlier call. Times in Tokyo. */
function calendar(): string {
  const start = tokyoDay(-3).ics;
  const tomorrow = tokyoDay(1).ics;
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    event(
      "e2e-agenda-standup",
      "Morning standup",
      `DTSTART;TZID=${ZONE}:${start}T093000`,
      `DTEND;TZID=${ZONE}:${start}T094500`,
      "RRULE:FREQ=DAILY",
    ),
    event(
      "e2e-agenda-review",
      "Design review",
      `DTSTART;TZID=${ZONE}:${tomorrow}T140000`,
      `DTEND;TZID=${ZONE}:${tomorrow}T150000`,
      "LOCATION:Room 4",
    ),
    event(
      "e2e-agenda-call",
      "Early call",
      `DTSTART;TZID=${ZONE}:${tomorrow}T080000`,
      `DTEND;TZID=${ZONE}:${tomorrow}T083000`,
    ),
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

async function trpcMutation(request: APIRequestContext, path: string, input: unknown): Promise<unknown> {
  const res = await request.post(`/api/trpc/${path}`, { data: { json: input } });
  expect(res.ok(), `${path}: ${await res.text()}`).toBe(true);
  return (await res.json()).result.data.json;
}

async function trpcQuery(request: APIRequestContext, path: string): Promise<unknown> {
  const res = await request.get(`/api/trpc/${path}`);
  expect(res.ok(), `${path}: ${await res.text()}`).toBe(true);
  return (await res.json()).result.data.json;
}

/** Console errors and uncaught errors (React reports a hydration mismatch as either). */
function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(`console.error: ${msg.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  return errors;
}

/** Lets hydration and the effects after it finish. */
async function settle(page: Page): Promise<void> {
  await page.waitForLoadState("load");
  for (let i = 0; i < 2; i++) {
    await page.evaluate(() => new Promise<void>((resolve) => requestIdleCallback(() => resolve(), { timeout: 2000 })));
  }
}

const dayCards = (page: Page) => page.locator('[data-testid="feed-card"][data-item-type="calendar-day"]');
const rowsOf = async (card: Locator) =>
  card
    .getByTestId("agenda-event")
    .evaluateAll((rows) =>
      rows.map(
        (r) =>
          `${r.querySelector('[data-testid="agenda-time"]')?.textContent} ${r.querySelector('[data-testid="agenda-title"]')?.textContent}`,
      ),
    );
/** Every agenda card's text, in order: what the reader sees of the agenda. */
const agendaText = (page: Page) => dayCards(page).evaluateAll((cards) => cards.map((c) => c.textContent ?? ""));

test("the calendar is an agenda in the Settings time zone, the same in the server's HTML as after hydration", async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  const request = page.request;
  const previous = (await trpcQuery(request, "settings.feed")) as Record<string, unknown>;
  await site.setPage("/feed-agenda.ics", { contentType: "text/calendar", body: calendar() });
  const forecast = (await import("../fixtures/open-meteo/forecast.json", { with: { type: "json" } })).default;
  await site.setJson("/v1/forecast", forecast);
  const feedSettings = (over: Record<string, unknown>) => ({
    locationName: previous.locationName ?? null,
    latitude: previous.latitude ?? null,
    longitude: previous.longitude ?? null,
    timezone: previous.timezone ?? null,
    memory: previous.memory ?? "",
    calendarUrl: previous.calendarUrl ?? null,
    ...over,
  });
  await trpcMutation(
    request,
    "settings.updateFeed",
    feedSettings({
      timezone: ZONE,
      calendarUrl: site.urlFor("/feed-agenda.ics"),
      locationName: "Tokyo",
      latitude: 35.68,
      longitude: 139.69,
    }),
  );
  const tomorrow = tokyoDay(1).key;
  try {
    // The calendar is downloaded after a feed load; wait for its copy so every page below renders it at once.
    await expect
      .poll(async () => JSON.stringify(await trpcQuery(request, "feed.get")), { timeout: 30_000 })
      .toContain(`agenda:${tomorrow}`);

    // The server's HTML, before any script: Tokyo times (09:30 there is 16:30 or 17:30 in Los Angeles).
    const html = await (await request.get("/")).text();
    const serverTimes = [...html.matchAll(/data-testid="agenda-time"[^>]*>([^<]*)</g)].map((m) => m[1]);
    expect(serverTimes).toContain("09:30–09:45");
    expect(serverTimes).toEqual(expect.arrayContaining(["08:00–08:30", "14:00–15:00"]));
    expect(serverTimes.filter((t) => /^1[67]:30/.test(t ?? ""))).toEqual([]);
    expect(html).toContain(`Times in ${ZONE}, your time zone in Settings.`);

    // The same page without JavaScript: what the server rendered, as the reader sees it before hydration.
    const noJs = await browser.newContext({
      javaScriptEnabled: false,
      storageState: OWNER_STATE.rulesApp,
      baseURL: E2E_URLS.rulesApp,
      timezoneId: "America/Los_Angeles",
    });
    let before: string[];
    try {
      const plain = await noJs.newPage();
      await plain.goto("/");
      await expect(dayCards(plain).first()).toBeVisible();
      before = await agendaText(plain);
    } finally {
      await noJs.close();
    }

    const errors = collectErrors(page);
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      await page.goto("/");
      await expect(dayCards(page).first()).toBeVisible();
      await settle(page);
      // Hydration rewrote nothing: the agenda reads exactly as the server wrote it.
      expect(await agendaText(page), `${viewport.width}px`).toEqual(before);
      expect(errors, `${viewport.width}px`).toEqual([]);

      // One card per day, today first: the standup once in each (today's may be over already), in time order.
      const cards = dayCards(page);
      const count = await cards.count();
      expect(count).toBe(7);
      await expect(cards.first().getByRole("heading")).toHaveText("Today");
      await expect(cards.nth(1).getByRole("heading")).toHaveText("Tomorrow");
      await expect(cards.nth(1)).toHaveAttribute("data-item-id", `agenda:${tomorrow}`);
      for (let i = 0; i < count; i++) {
        const rows = await rowsOf(cards.nth(i));
        const standups = rows.filter((r) => r === "09:30–09:45 Morning standup");
        expect(standups.length, `card ${i}: ${rows.join(", ")}`).toBe(i === 0 ? Math.min(1, standups.length) : 1);
      }
      expect(await rowsOf(cards.nth(1))).toEqual([
        "08:00–08:30 Early call",
        "09:30–09:45 Morning standup",
        "14:00–15:00 Design review",
      ]);
      // The weather sits right after today's agenda.
      const order = await page
        .locator('[data-testid="feed-card"]')
        .evaluateAll((all) => all.map((c) => c.getAttribute("data-item-type")));
      const today = order.indexOf("calendar-day");
      expect(order[today + 1]).toBe("weather-current");
      expect(order.slice(0, today).every((type) => type?.startsWith("briefing"))).toBe(true);

      // Light and dark: no serious axe finding, one h1 and no skipped heading level, links named, no layout shift.
      await auditPage(page, {
        name: `feed with the agenda at ${viewport.width}px`,
        path: "/",
        ready: (p) => expect(dayCards(p).first()).toBeVisible(),
      });
      expect(errors, `${viewport.width}px after the audit`).toEqual([]);
    }
  } finally {
    await trpcMutation(request, "settings.updateFeed", feedSettings({}));
  }
});
