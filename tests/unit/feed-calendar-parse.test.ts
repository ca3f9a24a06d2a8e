import fs from "node:fs";
import { describe, expect, it } from "vitest";
import {
  CalendarParseError,
  parseCalendar,
  resolveOccurrenceTime,
  type TCalendarOccurrence,
} from "@/server/feed/calendar/parse-calendar";
import { resolveTzid, zonedWallTimeToUtc } from "@/server/feed/calendar/zoned-time";

const NOW = new Date("2026-11-29T15:00:00Z");
const WINDOW = { from: new Date(NOW.getTime() - 86_400_000), to: new Date(NOW.getTime() + 31 * 86_400_000) };
const fixture = (name: string) => fs.readFileSync(`tests/fixtures/calendars/${name}`, "utf8");
const ics = (...lines: string[]) => ["BEGIN:VCALENDAR", "VERSION:2.0", ...lines, "END:VCALENDAR"].join("\r\n");
const titled = (occ: TCalendarOccurrence[], summary: string) => occ.filter((o) => o.summary === summary);

describe("time zones", () => {
  it("a TZID event at 09:30 New York (VTIMEZONE in the file) is 14:30 UTC", () => {
    const { occurrences } = parseCalendar(fixture("google.ics"), WINDOW);
    const [prep] = titled(occurrences, "Board prep");
    expect(prep).toMatchObject({
      start: "2026-12-01T14:30:00.000Z",
      end: "2026-12-01T15:30:00.000Z",
      location: "Boardroom, 5th floor",
      recurrenceId: null,
      allDay: false,
    });
  });

  it("IANA TZIDs without a VTIMEZONE use the platform zone database, DST included", () => {
    const text = ics(
      "BEGIN:VEVENT",
      "UID:ny@x",
      "SUMMARY:NY",
      "DTSTART;TZID=America/New_York:20261201T093000",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:summer@x",
      "SUMMARY:NY summer",
      "DTSTART;TZID=America/New_York:20260701T093000",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:berlin@x",
      "SUMMARY:Berlin",
      "DTSTART;TZID=/mozilla.org/20050126_1/Europe/Berlin:20261202T100000",
      "END:VEVENT",
    );
    const wide = { from: new Date("2026-06-01T00:00:00Z"), to: new Date("2026-12-31T00:00:00Z") };
    const byTitle = Object.fromEntries(parseCalendar(text, wide).occurrences.map((o) => [o.summary, o.start]));
    expect(byTitle).toEqual({
      NY: "2026-12-01T14:30:00.000Z",
      "NY summer": "2026-07-01T13:30:00.000Z",
      Berlin: "2026-12-02T09:00:00.000Z",
    });
  });

  it("Outlook: a Windows zone defined in the file and one only named (CLDR mapping)", () => {
    const { occurrences } = parseCalendar(fixture("outlook.ics"), WINDOW);
    expect(titled(occurrences, "Call with the New York office")[0]?.start).toBe("2026-12-03T16:00:00.000Z");
    expect(titled(occurrences, "Team sync")[0]?.start).toBe("2026-11-30T09:00:00.000Z"); // 10:00 Berlin (CET)
  });

  it("resolves zone names and wall times at DST edges", () => {
    expect(resolveTzid("W. Europe Standard Time")).toBe("Europe/Berlin");
    expect(resolveTzid("Europe/Paris")).toBe("Europe/Paris");
    expect(resolveTzid("Not/AZone")).toBeNull();
    const wall = (hour: number, minute = 30) => ({ year: 2026, month: 3, day: 8, hour, minute, second: 0 });
    // 02:30 does not exist in New York on 8 March 2026: read with the offset before the change (EST).
    expect(zonedWallTimeToUtc(wall(2), "America/New_York").toISOString()).toBe("2026-03-08T07:30:00.000Z");
    // 01:30 on 1 November 2026 happens twice: the first (EDT) is meant.
    const repeated = { year: 2026, month: 11, day: 1, hour: 1, minute: 30, second: 0 };
    expect(zonedWallTimeToUtc(repeated, "America/New_York").toISOString()).toBe("2026-11-01T05:30:00.000Z");
  });

  it("floating times use X-WR-TIMEZONE, else stay floating and are read in the user's zone", () => {
    const event = ["BEGIN:VEVENT", "UID:f@x", "SUMMARY:Floating", "DTSTART:20261201T090000", "END:VEVENT"];
    const withCalendarZone = parseCalendar(ics("X-WR-TIMEZONE:Europe/London", ...event), WINDOW).occurrences;
    expect(withCalendarZone[0]?.start).toBe("2026-12-01T09:00:00.000Z");
    const [floating] = parseCalendar(ics(...event), WINDOW).occurrences;
    expect(floating?.start).toBe("2026-12-01T09:00:00");
    expect(resolveOccurrenceTime(floating?.start ?? "", "Asia/Tokyo").toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(resolveOccurrenceTime(floating?.start ?? "", null).toISOString()).toBe("2026-12-01T09:00:00.000Z");
  });
});

describe("recurrence", () => {
  it("a weekly RRULE with one EXDATE and one moved instance (Google), across the DST change", () => {
    const wide = { from: new Date("2026-10-26T00:00:00Z"), to: new Date("2026-12-23T00:00:00Z") };
    const standups = parseCalendar(fixture("google.ics"), wide).occurrences.filter((o) =>
      o.summary.startsWith("Team standup"),
    );
    expect(standups.map((o) => [o.start, o.summary])).toEqual([
      ["2026-10-27T13:00:00.000Z", "Team standup"], // 09:00 EDT
      ["2026-11-03T14:00:00.000Z", "Team standup"], // 09:00 EST after 1 November
      ["2026-11-10T14:00:00.000Z", "Team standup"],
      ["2026-11-17T14:00:00.000Z", "Team standup"],
      ["2026-11-24T14:00:00.000Z", "Team standup"],
      ["2026-12-01T14:00:00.000Z", "Team standup"],
      // 8 December: EXDATE
      ["2026-12-15T16:00:00.000Z", "Team standup (moved for the all-hands)"],
      ["2026-12-22T14:00:00.000Z", "Team standup"],
    ]);
    expect(standups.find((o) => o.summary.includes("moved"))?.recurrenceId).toBe("2026-12-15T14:00:00.000Z");
  });

  it("Outlook: Mon/Wed series with an EXDATE and a moved instance", () => {
    const to = new Date("2026-12-10T00:00:00Z");
    const sync = parseCalendar(fixture("outlook.ics"), { from: WINDOW.from, to }).occurrences.filter((o) =>
      o.summary.startsWith("Team sync"),
    );
    expect(sync.map((o) => o.start)).toEqual([
      "2026-11-30T09:00:00.000Z",
      // Wed 2 December: EXDATE
      "2026-12-07T13:00:00.000Z", // moved to 14:00 Berlin
      "2026-12-09T09:00:00.000Z",
    ]);
  });

  it("iCloud: COUNT=5 with one moved and one cancelled instance; a yearly all-day event since 2010", () => {
    const { occurrences } = parseCalendar(fixture("icloud.ics"), WINDOW);
    const gym = occurrences.filter((o) => o.summary.startsWith("Gym"));
    expect(gym.map((o) => [o.start, o.summary])).toEqual([
      ["2026-11-30T18:00:00.000Z", "Gym"],
      ["2026-12-01T18:00:00.000Z", "Gym"],
      ["2026-12-02T20:00:00.000Z", "Gym (late session)"],
      // 3 December: cancelled override
      ["2026-12-04T18:00:00.000Z", "Gym"],
    ]);
    expect(gym[0]?.location).toBe("PureGym London Holborn, 12 Kingsway, London WC2B 6AA, United Kingdom");
    expect(titled(occurrences, "Anniversary")).toEqual([
      expect.objectContaining({ allDay: true, start: "2026-12-01", end: "2026-12-02" }),
    ]);
    expect(titled(occurrences, "Call with Sam (Pacific time)")[0]?.start).toBe("2026-12-05T17:00:00.000Z");
  });

  it("expansion is bounded: a per-second rule from 2001 is cut off, the rest of the calendar survives", () => {
    const text = ics(
      "BEGIN:VEVENT",
      "UID:storm@x",
      "SUMMARY:Storm",
      "DTSTART:20010101T000000Z",
      "RRULE:FREQ=SECONDLY",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:ok@x",
      "SUMMARY:Still here",
      "DTSTART:20261201T100000Z",
      "END:VEVENT",
    );
    const limits = { maxStepsPerSeries: 2_000, maxSteps: 50_000, maxOccurrences: 100, budgetMs: 10_000 };
    const result = parseCalendar(text, WINDOW, limits);
    expect(result.truncated).toBe(true);
    expect(result.occurrences.map((o) => o.summary)).toEqual(["Still here"]);
  });

  it("keeps at most maxOccurrences, earliest first", () => {
    const text = ics(
      "BEGIN:VEVENT",
      "UID:d@x",
      "SUMMARY:Daily",
      "DTSTART:20261101T080000Z",
      "RRULE:FREQ=DAILY",
      "END:VEVENT",
    );
    const result = parseCalendar(text, WINDOW, {
      maxStepsPerSeries: 1_000,
      maxSteps: 1_000,
      maxOccurrences: 3,
      budgetMs: 10_000,
    });
    expect(result.truncated).toBe(true);
    expect(result.occurrences.map((o) => o.start)).toEqual([
      "2026-11-28T08:00:00.000Z",
      "2026-11-29T08:00:00.000Z",
      "2026-11-30T08:00:00.000Z",
    ]);
  });

  it("a daily series started years ago still reaches the window (fast-forward keeps the phase)", () => {
    const text = ics(
      "BEGIN:VEVENT",
      "UID:every3@x",
      "SUMMARY:Every third day",
      "DTSTART;TZID=Europe/Berlin:20100104T073000",
      "RRULE:FREQ=DAILY;INTERVAL=3",
      "EXDATE;TZID=Europe/Berlin:20261203T073000",
      "END:VEVENT",
    );
    const to = new Date("2026-12-08T00:00:00Z");
    const limits = { maxStepsPerSeries: 50, maxSteps: 1_000, maxOccurrences: 100, budgetMs: 10_000 };
    const result = parseCalendar(text, { from: WINDOW.from, to }, limits);
    expect(result.truncated).toBe(false);
    // 2010-01-04 + 3k days: 30 November 2026 is day 6174 = 3 × 2058; 3 December (EXDATE) is skipped.
    expect(result.occurrences.map((o) => o.start)).toEqual(["2026-11-30T06:30:00.000Z", "2026-12-06T06:30:00.000Z"]);
  });
});

describe("cancelled, all-day, untrusted input", () => {
  it("cancelled events are hidden (Google STATUS:CANCELLED, Outlook 'Canceled:')", () => {
    const google = parseCalendar(fixture("google.ics"), WINDOW).occurrences;
    const outlook = parseCalendar(fixture("outlook.ics"), WINDOW).occurrences;
    expect(titled(google, "Vendor call")).toEqual([]);
    expect(outlook.some((o) => o.summary.includes("Budget review"))).toBe(false);
    // …while the rest of those calendars is there.
    expect(titled(google, "Board prep")).toHaveLength(1);
    expect(titled(outlook, "Public holiday (office closed)")).toHaveLength(1);
  });

  it("all-day events stay dates and are read as the user's local day", () => {
    const [offsite] = titled(parseCalendar(fixture("google.ics"), WINDOW).occurrences, "Company offsite");
    expect(offsite).toMatchObject({ allDay: true, start: "2026-12-04", end: "2026-12-05" });
    expect(resolveOccurrenceTime("2026-12-04", "America/New_York").toISOString()).toBe("2026-12-04T05:00:00.000Z");
  });

  it("reads folded lines and escapes; a VEVENT without DTSTART is skipped, not fatal", () => {
    const text = ics(
      "BEGIN:VEVENT",
      "UID:1@x",
      "SUMMARY:Dinner at The Ivy\\, West St",
      "DTSTART:20261129T190000Z",
      "DTEND:20261129T210000Z",
      "LOCATION:The Ivy",
      "  London",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:2@x",
      "SUMMARY:No start",
      "END:VEVENT",
    );
    const result = parseCalendar(text, WINDOW);
    expect(result.occurrences).toEqual([
      {
        uid: "1@x",
        recurrenceId: null,
        summary: "Dinner at The Ivy, West St",
        location: "The Ivy London",
        allDay: false,
        start: "2026-11-29T19:00:00.000Z",
        end: "2026-11-29T21:00:00.000Z",
      },
    ]);
    expect(result.skippedEvents).toBe(1);
  });

  it("a file that is not iCalendar fails with a message fit for the error chip", () => {
    expect(() => parseCalendar("BEGIN:VCALENDAR\r\nthis is not a content line\r\nEND:VCALENDAR", WINDOW)).toThrow(
      CalendarParseError,
    );
    expect(() => parseCalendar("BEGIN:VCALENDAR\r\nthis is not a content line\r\nEND:VCALENDAR", WINDOW)).toThrow(
      /^The calendar file is not valid iCalendar: /,
    );
    expect(() => parseCalendar("BEGIN:VCARD\r\nVERSION:4.0\r\nEND:VCARD", WINDOW)).toThrow(
      "The calendar file has no VCALENDAR in it.",
    );
  });
});
