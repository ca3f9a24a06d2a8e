import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TFeed, TFeedItem } from "@/contracts/feed-item";
import { createCaller } from "@/server/api/root";
import { settleDeferred } from "@/server/defer";
import { resetEnvForTests } from "@/server/env";
import { buildFeed } from "@/server/feed/build-feed";
import { getFeed } from "@/server/feed/get-feed";
import { getUserSettings, updateUserSettings } from "@/server/settings/user-settings";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * The agenda through a real feed load (docs/feed.md, "Agenda", "Order", "Time zone"): a week's .ics from the fixture
 * site — a daily standup, a day with three events, a call that is Tuesday in UTC and Wednesday in Tokyo, a dinner
 * across midnight, a two-day offsite — read as one card per day in the person's zone, the weather after today's.
 */
const NOW = new Date("2026-12-06T23:00:00Z"); // Monday 7 Dec 08:00 in Tokyo; Sunday 6 Dec in UTC
const ICS = fs.readFileSync("tests/fixtures/calendars/agenda.ics", "utf8");
const FORECAST = JSON.parse(fs.readFileSync("tests/fixtures/open-meteo/forecast.json", "utf8"));

let t: TTestDb;
let site: TFixtureSite;
let userId: string;

beforeAll(async () => {
  [t, site] = await Promise.all([createTestDb(), startFixtureSite()]);
  process.env.OPEN_METEO_BASE_URL = site.url;
  process.env.FETCH_ALLOW_HOSTS = `127.0.0.1:${site.port}`;
  resetEnvForTests();
  userId = (await ensureLocalUser(t.db)).id;
  site.setPage("/agenda.ics", { body: ICS, contentType: "text/calendar" });
  site.setJson("/v1/forecast", FORECAST);
});

afterAll(async () => {
  delete process.env.OPEN_METEO_BASE_URL;
  delete process.env.FETCH_ALLOW_HOSTS;
  resetEnvForTests();
  await settleDeferred();
  await Promise.all([t?.close(), site?.close()]);
});

const settings = (timezone: string | null) =>
  updateUserSettings(t.db, userId, {
    locationName: "Tokyo",
    latitude: 35.68,
    longitude: 139.69,
    timezone,
    calendarUrl: site.urlFor("/agenda.ics"),
    memory: "",
  });
const load = () => getFeed(t.db, userId, { now: NOW, enhance: false });
const days = (items: TFeedItem[]) => items.filter((i) => i.type === "calendar-day");
type TRow = { time: string; title: string };
const rowsOf = (item: TFeedItem | undefined) => {
  const list = Object.values(item?.ui?.elements ?? {}).find((e) => e.type === "AgendaList");
  return ((list?.props.events ?? []) as TRow[]).map((e) => `${e.time} ${e.title}`);
};
const forecastZones = () =>
  site.requests
    .filter((r) => r.path.startsWith("/v1/forecast"))
    .map((r) => new URL(r.path, site.url).searchParams.get("timezone"));

describe("the feed's agenda from a real .ics", () => {
  let feed: TFeed;

  beforeAll(async () => {
    await settings("Asia/Tokyo");
    // The first load schedules the download; the next reads the cached copy.
    expect((await load()).items.map((i) => i.type)).toContain("calendar-loading");
    await settleDeferred();
    feed = await load();
  });

  it("one card per day in Tokyo, today first, the daily standup once in each", () => {
    expect(feed.errors).toEqual([]);
    const cards = days(feed.items);
    expect(cards.map((c) => [c.id, c.data.title])).toEqual([
      ["agenda:2026-12-07", "Today"],
      ["agenda:2026-12-08", "Tomorrow"],
      ["agenda:2026-12-09", "Wednesday 9 Dec"],
      ["agenda:2026-12-10", "Thursday 10 Dec"],
      ["agenda:2026-12-11", "Friday 11 Dec"],
      ["agenda:2026-12-12", "Saturday 12 Dec"],
      ["agenda:2026-12-13", "Sunday 13 Dec"],
    ]);
    for (const card of cards) {
      expect(card.ui, card.id).toBeDefined(); // the catalog accepted its spec
      expect(
        rowsOf(card).filter((r) => r.endsWith("Daily standup")),
        card.id,
      ).toEqual(["09:30–09:45 Daily standup"]);
    }
    expect(feed.items.filter((i) => i.sourceId === "calendar")).toHaveLength(7);
  });

  it("each day in time order, in Tokyo time: a call at 16:00 UTC is Wednesday 01:00; the dinner crosses midnight", () => {
    const [, tue, wed, thu] = days(feed.items);
    expect(rowsOf(tue)).toEqual([
      "08:00–08:30 Early call with the supplier",
      "09:30–09:45 Daily standup",
      "12:00–13:00 Lunch with Aiko",
    ]);
    expect(rowsOf(wed)).toEqual([
      "01:00–02:00 Call with London",
      "09:30–09:45 Daily standup",
      "22:00 Late dinner with the team",
    ]);
    expect(rowsOf(thu)).toEqual([
      "All day Offsite",
      "until 01:30 Late dinner with the team",
      "09:30–09:45 Daily standup",
    ]);
  });

  it("the feed reads as a morning briefing: today's agenda, the weather with it, then the coming days", () => {
    // A briefing card (its own source) may be pinned above; everything else follows the agenda.
    const first = feed.items.findIndex((i) => i.type === "calendar-day");
    expect(feed.items.slice(0, first).every((i) => i.sourceId === "briefing")).toBe(true);
    expect(feed.items.slice(first, first + 4).map((i) => i.id)).toEqual([
      "agenda:2026-12-07",
      "weather:35.68,139.69",
      "agenda:2026-12-08",
      "agenda:2026-12-09",
    ]);
    // The weather's hours are asked for in the same zone.
    expect(forecastZones().at(-1)).toBe("Asia/Tokyo");
  });

  it("without a zone in Settings the days are UTC's (Sunday is still today), or the browser's when it is known", async () => {
    await settings(null);
    const utc = days((await load()).items);
    expect(utc[0]?.id).toBe("agenda:2026-12-06");
    expect(rowsOf(utc.find((c) => c.id === "agenda:2026-12-08"))).toContain("16:00–17:00 Call with London");
    expect(JSON.stringify(utc[0]?.ui)).toContain("Times in UTC: set your time zone in Settings.");
    expect(forecastZones().at(-1)).toBe("auto");

    const la = await buildFeed(t.db, userId, await getUserSettings(t.db, userId), {
      now: NOW,
      defer: () => {},
      browserTimeZone: "America/Los_Angeles",
    });
    const [today] = days(la.items);
    // 15:00 on Sunday in Los Angeles: Monday's 09:30 standup in Tokyo is 16:30 today.
    expect(today?.id).toBe("agenda:2026-12-06");
    expect(rowsOf(today)).toEqual(["16:30–16:45 Daily standup"]);
    expect(JSON.stringify(today?.ui)).toContain("Times in America/Los_Angeles, this browser's time zone.");
    expect(forecastZones().at(-1)).toBe("America/Los_Angeles");
  });

  it("the feed's procedure reads the browser's zone from its cookie when Settings has none", async () => {
    await settings(null);
    const user = await ensureLocalUser(t.db);
    const headers = new Headers({ cookie: "theme=dark; bellwether-tz=America%2FLos_Angeles" });
    const caller = createCaller(testTrpcContext(t.db, user, { headers }));
    const [first] = days((await caller.feed.get()).items);
    expect(JSON.stringify(first?.ui)).toContain("Times in America/Los_Angeles, this browser's time zone.");
    const plain = createCaller(testTrpcContext(t.db, user));
    const [utc] = days((await plain.feed.get()).items);
    expect(JSON.stringify(utc?.ui)).toContain("Times in UTC: set your time zone in Settings.");
  });
});
