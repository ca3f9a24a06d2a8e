import fs from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TFeed } from "@/contracts/feed-item";
import { settleDeferred, type TDefer } from "@/server/defer";
import { resetEnvForTests } from "@/server/env";
import {
  CALENDAR_REFRESH_MS,
  readCalendarCache,
  refreshCalendar,
  type TCalendarRefreshOutcome,
} from "@/server/feed/calendar/calendar-cache";
import { feedEvents, type TFeedEvent } from "@/server/feed/feed-events";
import { getFeed } from "@/server/feed/get-feed";
import { updateUserSettings } from "@/server/settings/user-settings";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * The calendar cache behind the feed: feed loads read the cache and never wait on the calendar host;
 * a missing or due copy is refetched in the background (through `defer`), conditionally (ETag → 304),
 * once per user and URL; results reach open pages as feed events.
 */

const NOW = new Date("2026-11-29T15:00:00Z");
const MIN = 60_000;
const GOOGLE = fs.readFileSync("tests/fixtures/calendars/google.ics", "utf8");

/** A calendar host that holds every request until the test releases it. */
type TGate = {
  url: string;
  host: string;
  /** Requests that arrived and have not been answered yet. */
  held: number;
  served: number;
  /** Resolves when the next request arrives. */
  nextRequest(): Promise<void>;
  release(body: string): void;
  close(): Promise<void>;
};

async function startGate(): Promise<TGate> {
  const waiting: ServerResponse[] = [];
  let onRequest: (() => void) | null = null;
  let served = 0;
  const server = createServer((req, res) => {
    req.resume();
    waiting.push(res);
    onRequest?.();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/slow.ics`,
    host: `127.0.0.1:${port}`,
    get held() {
      return waiting.length;
    },
    get served() {
      return served;
    },
    nextRequest: () =>
      new Promise<void>((resolve) => {
        if (waiting.length > 0) resolve();
        else onRequest = resolve;
      }),
    release(body) {
      for (const res of waiting.splice(0)) {
        res.writeHead(200, { "content-type": "text/calendar" });
        res.end(body);
        served++;
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let t: TTestDb;
let site: TFixtureSite;
let gate: TGate;
let userId: string;

/** Collects this user's feed events from now on until the returned stop() is called. */
function collectEvents(uid: string): { events: TFeedEvent[]; stop: () => void } {
  const controller = new AbortController();
  const events: TFeedEvent[] = [];
  // A "reconnect" past every existing event: no replay of an earlier test's event.
  const lastEventId = String(Number.MAX_SAFE_INTEGER);
  void (async () => {
    for await (const e of feedEvents(uid, { signal: controller.signal, lastEventId })) events.push(e);
  })();
  return { events, stop: () => controller.abort() };
}

async function configureCalendar(url: string, uid = userId): Promise<void> {
  await updateUserSettings(t.db, uid, {
    locationName: null,
    latitude: null,
    longitude: null,
    timezone: "America/New_York",
    calendarUrl: url,
    memory: "",
  });
}

const calendarItems = (feed: TFeed) => feed.items.filter((i) => i.sourceId === "calendar");
type TAgendaEvent = { title: string; start: string; allDay: boolean };
/** The agenda's events (one card per day, docs/feed.md "Agenda"), each with the id of the day card it is on. */
const agendaEvents = (feed: TFeed) =>
  calendarItems(feed).flatMap((card) =>
    ((card.data.events ?? []) as TAgendaEvent[]).map((e) => ({ ...e, day: card.id, dayStart: card.timestamp })),
  );
const eventTitles = (feed: TFeed) => agendaEvents(feed).map((e) => e.title);
const load = (now: Date, extra: Parameters<typeof getFeed>[2] = {}) =>
  getFeed(t.db, userId, { now, enhance: false, ...extra });

beforeAll(async () => {
  [t, site, gate] = await Promise.all([createTestDb(), startFixtureSite(), startGate()]);
  process.env.FETCH_ALLOW_HOSTS = `127.0.0.1:${site.port},${gate.host}`;
  resetEnvForTests();
  userId = (await ensureLocalUser(t.db)).id;
});

afterAll(async () => {
  delete process.env.FETCH_ALLOW_HOSTS;
  resetEnvForTests();
  await settleDeferred();
  await Promise.all([t?.close(), site?.close(), gate?.close()]);
});

beforeEach(async () => {
  await settleDeferred();
  await t.db.calendarCache.deleteMany({});
});

describe("feed loads read the cache; the calendar is fetched in the background", () => {
  it("first load: a 'calendar loading' card, no error, and the feed answers while the calendar host stalls", async () => {
    await configureCalendar(gate.url);
    const { events, stop } = collectEvents(userId);

    const first = await load(NOW);
    expect(first.errors).toEqual([]);
    expect(calendarItems(first).map((i) => [i.id, i.type])).toEqual([["calendar:loading", "calendar-loading"]]);
    expect(JSON.stringify(calendarItems(first)[0]?.ui)).toContain("Loading your calendar");

    // The refetch is running and the host has not answered: feed loads still answer at once, from the cache,
    // and start no second download (single flight).
    await gate.nextRequest();
    expect(gate.held).toBe(1);
    const second = await load(new Date(NOW.getTime() + 1_000));
    expect(calendarItems(second).map((i) => i.type)).toEqual(["calendar-loading"]);
    expect(gate.held).toBe(1);
    expect(events).toEqual([]);

    gate.release(GOOGLE);
    await settleDeferred();
    expect(gate.served).toBe(1);
    expect(events.map((e) => e.reason)).toEqual(["calendar"]);
    stop();

    const third = await load(new Date(NOW.getTime() + 2_000));
    expect(third.errors).toEqual([]);
    // An agenda, one card per day in New York: today (Sunday, nothing on it) and the two days with events.
    expect(calendarItems(third).map((i) => [i.id, i.type])).toEqual([
      ["agenda:2026-11-29", "calendar-day"],
      ["agenda:2026-12-01", "calendar-day"],
      ["agenda:2026-12-04", "calendar-day"],
    ]);
    const shown = agendaEvents(third).map((e) => [e.day, e.title, e.start, e.allDay]);
    expect(shown).toEqual([
      ["agenda:2026-12-01", "Team standup", "2026-12-01T14:00:00.000Z", false],
      ["agenda:2026-12-01", "Board prep", "2026-12-01T14:30:00.000Z", false], // 09:30 New York
      ["agenda:2026-12-04", "Company offsite", "2026-12-04", true],
    ]);
    // All day, in the user's zone: the offsite's day begins at midnight in New York.
    expect(
      agendaEvents(third)
        .find((e) => e.title === "Company offsite")
        ?.dayStart.toISOString(),
    ).toBe("2026-12-04T05:00:00.000Z");
    expect(shown.some(([, title]) => title === "Vendor call")).toBe(false); // cancelled
    expect(gate.held).toBe(0);
    expect(gate.served).toBe(1); // reading the cache fetched nothing
  });

  it("100 concurrent feed loads with no cache fetch the calendar once", async () => {
    site.setPage("/many.ics", { body: GOOGLE, contentType: "text/calendar" });
    await configureCalendar(site.urlFor("/many.ics"));
    const before = site.hits("/many.ics");
    const feeds = await Promise.all(Array.from({ length: 100 }, () => load(NOW)));
    expect(feeds.every((f) => calendarItems(f)[0]?.type === "calendar-loading")).toBe(true);
    await settleDeferred();
    expect(site.hits("/many.ics") - before).toBe(1);
    expect(eventTitles(await load(NOW))).toHaveLength(3); // the week's three events, on the agenda's day cards
  });

  it("another process holding the lease: no download here", async () => {
    site.setPage("/leased.ics", { body: GOOGLE, contentType: "text/calendar" });
    const url = site.urlFor("/leased.ics");
    const fetchConfig = localCapabilityConfig([site.url]).fetch;
    expect(await refreshCalendar(t.db, { userId, url, now: NOW, fetchConfig })).toBe("downloaded");
    const later = new Date(NOW.getTime() + CALENDAR_REFRESH_MS + MIN);
    await t.db.calendarCache.updateMany({
      data: { leaseToken: "elsewhere", leaseExpiresAt: new Date(later.getTime() + 10 * MIN) },
    });
    const hits = site.hits("/leased.ics");
    expect(await refreshCalendar(t.db, { userId, url, now: later, fetchConfig, force: true })).toBe("skipped");
    expect(site.hits("/leased.ics")).toBe(hits);
  });
});

describe("conditional requests and the refetch schedule", () => {
  it("a due copy is revalidated with If-None-Match; a 304 downloads nothing and keeps the events", async () => {
    site.setPage("/etag.ics", { body: GOOGLE, contentType: "text/calendar", etag: '"v1"' });
    await configureCalendar(site.urlFor("/etag.ics"));
    const outcomes: TCalendarRefreshOutcome[] = [];
    const onCalendarRefreshed = (o: TCalendarRefreshOutcome) => outcomes.push(o);

    await load(NOW, { onCalendarRefreshed });
    await settleDeferred();
    expect(outcomes).toEqual(["downloaded"]);
    const firstRequest = site.requests.filter((r) => r.path === "/etag.ics").at(-1);
    expect(firstRequest?.headers["if-none-match"]).toBeUndefined();
    expect(firstRequest?.status).toBe(200);

    // Still fresh: loads read the cache and fetch nothing.
    const hits = site.hits("/etag.ics");
    await load(new Date(NOW.getTime() + 5 * MIN), { onCalendarRefreshed });
    await settleDeferred();
    expect(site.hits("/etag.ics")).toBe(hits);

    // Due: one conditional request, answered 304 without a body; the events stay.
    const due = new Date(NOW.getTime() + CALENDAR_REFRESH_MS + MIN);
    const feed = await load(due, { onCalendarRefreshed });
    await settleDeferred();
    expect(outcomes).toEqual(["downloaded", "not_modified"]);
    const revalidation = site.requests.filter((r) => r.path === "/etag.ics").at(-1);
    expect(revalidation?.headers["if-none-match"]).toBe('"v1"');
    expect(revalidation?.status).toBe(304);
    expect(site.hits("/etag.ics")).toBe(hits + 1);
    expect(eventTitles(feed)).toContain("Board prep");
    const view = await readCalendarCache(t.db, userId, site.urlFor("/etag.ics"));
    expect(view?.fetchedAt?.toISOString()).toBe(due.toISOString());
    expect(view?.nextFetchAt?.getTime()).toBe(due.getTime() + CALENDAR_REFRESH_MS);

    // A changed file (new ETag) is downloaded again.
    site.setPage("/etag.ics", {
      body: GOOGLE.replace("SUMMARY:Board prep", "SUMMARY:Board prep (room changed)"),
      contentType: "text/calendar",
      etag: '"v2"',
    });
    const later = new Date(due.getTime() + CALENDAR_REFRESH_MS + MIN);
    await load(later, { onCalendarRefreshed });
    await settleDeferred();
    expect(outcomes.at(-1)).toBe("downloaded");
    expect(eventTitles(await load(later))).toContain("Board prep (room changed)");
  });

  it("a host without validators sending the same bytes: 'unchanged', nothing re-parsed or rewritten", async () => {
    site.setPage("/plain.ics", { body: GOOGLE, contentType: "text/calendar" });
    const url = site.urlFor("/plain.ics");
    const fetchConfig = localCapabilityConfig([site.url]).fetch;
    expect(await refreshCalendar(t.db, { userId, url, now: NOW, fetchConfig })).toBe("downloaded");
    const due = new Date(NOW.getTime() + CALENDAR_REFRESH_MS);
    expect(await refreshCalendar(t.db, { userId, url, now: due, fetchConfig })).toBe("unchanged");
    const row = await t.db.calendarCache.findFirstOrThrow({ where: { userId } });
    expect(row.fetchedAt?.toISOString()).toBe(due.toISOString());
    expect(row.expandedFrom?.toISOString()).toBe(new Date(NOW.getTime() - 86_400_000).toISOString()); // not re-expanded
    site.setPage("/plain.ics", { body: GOOGLE.replace("Board prep", "Board prep v2"), contentType: "text/calendar" });
    const later = new Date(due.getTime() + CALENDAR_REFRESH_MS);
    expect(await refreshCalendar(t.db, { userId, url, now: later, fetchConfig })).toBe("downloaded");
  });

  it("Last-Modified works the same way; after a 304 the occurrences are re-expanded as time moves on", async () => {
    const lastModified = "Fri, 27 Nov 2026 10:00:00 GMT";
    site.setPage("/lm.ics", { body: GOOGLE, contentType: "text/calendar", lastModified });
    const url = site.urlFor("/lm.ics");
    const fetchConfig = localCapabilityConfig([site.url]).fetch;
    expect(await refreshCalendar(t.db, { userId, url, now: NOW, fetchConfig })).toBe("downloaded");

    // Three weeks on, the stored expansion no longer covers the coming week: revalidate (304) and re-expand.
    const threeWeeks = new Date(NOW.getTime() + 24 * 86_400_000);
    expect(await refreshCalendar(t.db, { userId, url, now: threeWeeks, fetchConfig })).toBe("not_modified");
    const last = site.requests.filter((r) => r.path === "/lm.ics").at(-1);
    expect(last?.headers["if-modified-since"]).toBe(lastModified);
    expect(last?.status).toBe(304);
    const view = await readCalendarCache(t.db, userId, url);
    const standups = (view?.occurrences ?? []).filter((o) => o.summary === "Team standup").map((o) => o.start);
    expect(standups).toContain("2027-01-05T14:00:00.000Z"); // beyond the first expansion's 31 days
  });
});

describe("failures become a clear per-source error, never a failed feed", () => {
  it("a broken refetch shows its error next to the last good copy; after a day, the error alone", async () => {
    site.setPage("/flaky.ics", { body: GOOGLE, contentType: "text/calendar" });
    await configureCalendar(site.urlFor("/flaky.ics"));
    await load(NOW);
    await settleDeferred();

    site.setPage("/flaky.ics", { status: 500, body: "down" });
    const { events, stop } = collectEvents(userId);
    const forced = await load(NOW, { refreshCalendar: true }); // the Refresh button
    expect(forced.errors).toEqual([]); // answered from the cache, before the refetch
    await settleDeferred();
    stop();
    expect(events.map((e) => e.reason)).toEqual(["calendar"]);

    const feed = await load(new Date(NOW.getTime() + 10_000));
    expect(feed.errors).toEqual([
      {
        sourceId: "calendar",
        message: expect.stringMatching(
          /^The calendar URL answered 500 Internal Server Error\..* Showing the copy from 2026-11-29 10:00 America\/New_York\.$/, // stamped in the person's zone
        ),
      },
    ]);
    expect(feed.errors[0]?.message).not.toContain(site.url); // the (possibly secret) URL is not repeated
    expect(eventTitles(feed)).toContain("Board prep");

    // Backoff: the next minute's loads do not hammer the host.
    const hits = site.hits("/flaky.ics");
    await load(new Date(NOW.getTime() + 30_000));
    await settleDeferred();
    expect(site.hits("/flaky.ics")).toBe(hits);

    const nextDay = new Date(NOW.getTime() + 25 * 3_600_000);
    await load(nextDay); // due → refetch (still 500)
    await settleDeferred();
    const stale = await load(nextDay);
    expect(stale.errors.map((e) => e.sourceId)).toEqual(["calendar"]);
    expect(stale.errors[0]?.message).not.toContain("Showing the copy");
    expect(calendarItems(stale)).toEqual([]);
  });

  it("not a calendar, a broken file, too big: each is the calendar's error chip; the feed still answers", async () => {
    const cases: { page: Parameters<TFixtureSite["setPage"]>[1]; message: RegExp }[] = [
      {
        page: { body: "<html>not a calendar</html>" },
        message: /^The calendar URL did not return an iCalendar \(\.ics\) file\.$/,
      },
      {
        page: {
          body: "BEGIN:VCALENDAR\r\nthis is not a content line\r\nEND:VCALENDAR\r\n",
          contentType: "text/calendar",
        },
        message: /^The calendar file is not valid iCalendar: /,
      },
      {
        page: { body: "BEGIN:VCALENDAR\r\n", hugeBytes: 3_000_000, contentType: "text/calendar" },
        message: /^The calendar file is larger than the 1\.0 MB limit \(FETCH_MAX_BYTES\)\.$/,
      },
    ];
    process.env.FETCH_MAX_BYTES = "1000000";
    resetEnvForTests();
    try {
      for (const [i, c] of cases.entries()) {
        site.setPage(`/bad-${i}.ics`, c.page);
        await configureCalendar(site.urlFor(`/bad-${i}.ics`));
        expect(calendarItems(await load(NOW))[0]?.type).toBe("calendar-loading");
        await settleDeferred();
        const feed = await load(NOW);
        expect(feed.errors).toHaveLength(1);
        expect(feed.errors[0]?.sourceId).toBe("calendar");
        expect(feed.errors[0]?.message).toMatch(c.message);
        expect(calendarItems(feed)).toEqual([]);
      }
    } finally {
      delete process.env.FETCH_MAX_BYTES;
      resetEnvForTests();
    }
  });
});

describe("ownership", () => {
  it("a cache is reached only through the user who configured the URL; changing the URL drops the old copy", async () => {
    site.setPage("/shared.ics", { body: GOOGLE, contentType: "text/calendar" });
    const url = site.urlFor("/shared.ics");
    await configureCalendar(url);
    await load(NOW);
    await settleDeferred();
    expect(eventTitles(await load(NOW))).toHaveLength(3); // the week's three events, on the agenda's day cards

    const other = await t.db.user.create({ data: { name: "Someone else" } });
    await configureCalendar(url, other.id);
    expect(await readCalendarCache(t.db, other.id, url)).toBeNull();
    const theirs = await getFeed(t.db, other.id, { now: NOW, enhance: false, defer: (() => {}) as TDefer });
    expect(calendarItems(theirs).map((i) => i.type)).toEqual(["calendar-loading"]);

    site.setPage("/other.ics", { body: GOOGLE, contentType: "text/calendar" });
    await configureCalendar(site.urlFor("/other.ics"));
    await load(NOW);
    await settleDeferred();
    const mine = await t.db.calendarCache.findMany({ where: { userId }, select: { url: true } });
    expect(mine).toEqual([{ url: site.urlFor("/other.ics") }]);
  });
});
