import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresDb, type TDbHandle } from "@/server/db";
import { CALENDAR_REFRESH_MS, readCalendarCache, refreshCalendar } from "@/server/feed/calendar/calendar-cache";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * The calendar cache on a real PostgreSQL, as a serverless deployment uses it: no memory between
 * instances, so single flight across them is the row's lease. "Another instance" is a second client.
 */
describe.skipIf(!hasPostgres)("calendar cache on PostgreSQL", () => {
  const NOW = new Date("2026-11-29T15:00:00Z");
  let t: TPostgresTestDb;
  let other: TDbHandle;
  let site: TFixtureSite;
  let userId: string;

  beforeAll(async () => {
    [t, site] = await Promise.all([createPostgresTestDb(), startFixtureSite()]);
    other = await createPostgresDb(t.url);
    userId = (await ensureLocalUser(t.db)).id;
  });
  afterAll(async () => {
    await other?.close();
    await site?.close();
    await t?.drop();
  });

  it("two instances refreshing at once download once; the copy and a 304 revalidation work on PostgreSQL", async () => {
    site.setPage("/pg.ics", {
      body: fs.readFileSync("tests/fixtures/calendars/outlook.ics", "utf8"),
      contentType: "text/calendar",
      etag: '"pg-1"',
      delayMs: 200, // the first claimant is still downloading when the second asks
    });
    const url = site.urlFor("/pg.ics");
    const fetchConfig = localCapabilityConfig([site.url]).fetch;
    const outcomes = await Promise.all([
      refreshCalendar(t.db, { userId, url, now: NOW, fetchConfig }),
      refreshCalendar(other.db, { userId, url, now: NOW, fetchConfig }),
    ]);
    expect(outcomes.sort()).toEqual(["downloaded", "skipped"]);
    expect(site.hits("/pg.ics")).toBe(1);

    const view = await readCalendarCache(other.db, userId, url);
    expect(view?.error).toBeNull();
    const sync = (view?.occurrences ?? []).filter((o) => o.summary === "Team sync").map((o) => o.start);
    expect(sync.slice(0, 2)).toEqual(["2026-11-30T09:00:00.000Z", "2026-12-09T09:00:00.000Z"]);

    const due = new Date(NOW.getTime() + CALENDAR_REFRESH_MS);
    expect(await refreshCalendar(other.db, { userId, url, now: due, fetchConfig })).toBe("not_modified");
    const last = site.requests.at(-1);
    expect(last?.headers["if-none-match"]).toBe('"pg-1"');
    expect(last?.status).toBe(304);
  });
});
