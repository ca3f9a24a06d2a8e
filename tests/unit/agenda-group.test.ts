import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { groupAgenda, type TAgendaDay } from "@/server/feed/agenda/group-agenda";
import { addDays, dayKeyOf, dayStart, dayTitle } from "@/server/feed/agenda/zoned-day";
import { parseCalendar, type TCalendarOccurrence } from "@/server/feed/calendar/parse-calendar";

/**
 * The agenda (docs/feed.md, "Agenda"): occurrences sorted into the days of the person's time zone. `NOW` is Monday
 * 7 Dec 08:00 in Tokyo, still Sunday 6 Dec 23:00 in UTC.
 */
const NOW = new Date("2026-12-06T23:00:00Z");
const TOKYO = "Asia/Tokyo";
const WEEK = { days: 7, maxPerDay: 20 };
const WINDOW = { from: new Date("2026-11-30T00:00:00Z"), to: new Date("2027-01-07T00:00:00Z") };
const ics = (...lines: string[]) => ["BEGIN:VCALENDAR", "VERSION:2.0", ...lines, "END:VCALENDAR"].join("\r\n");
const event = (uid: string, summary: string, ...props: string[]) => [
  "BEGIN:VEVENT",
  `UID:${uid}`,
  `SUMMARY:${summary}`,
  ...props,
  "END:VEVENT",
];
const occurrences = (text: string) => parseCalendar(text, WINDOW).occurrences;
const agenda = (occ: TCalendarOccurrence[], zone = TOKYO, now = NOW) => groupAgenda(occ, { zone, now, ...WEEK });
const titles = (day: TAgendaDay | undefined) => day?.events.map((e) => e.title);
const rows = (day: TAgendaDay | undefined) => day?.events.map((e) => [e.time, e.title, e.detail]);
const byDay = (days: TAgendaDay[]) => Object.fromEntries(days.map((d) => [d.day, d]));

describe("a daily RRULE", () => {
  const daily = ics(
    ...event(
      "standup@x",
      "Daily standup",
      "DTSTART;TZID=Asia/Tokyo:20261201T093000",
      "DTEND;TZID=Asia/Tokyo:20261201T094500",
      "RRULE:FREQ=DAILY",
    ),
    ...event("lunch@x", "Lunch", "DTSTART;TZID=Asia/Tokyo:20261208T120000", "DTEND;TZID=Asia/Tokyo:20261208T130000"),
  );

  it("is once in each of the seven days, which are one entry each, today first", () => {
    const days = agenda(occurrences(daily));
    expect(days.map((d) => d.day)).toEqual([
      "2026-12-07",
      "2026-12-08",
      "2026-12-09",
      "2026-12-10",
      "2026-12-11",
      "2026-12-12",
      "2026-12-13",
    ]);
    for (const day of days) {
      expect(day.events.filter((e) => e.title === "Daily standup")).toHaveLength(1);
      expect(day.events.find((e) => e.title === "Daily standup")).toMatchObject({
        time: "09:30–09:45",
        recurring: true,
      });
    }
    // Another event on a day shares that day's entry, in time order.
    expect(titles(days[1])).toEqual(["Daily standup", "Lunch"]);
    expect(days.flatMap((d) => d.events)).toHaveLength(8);
  });

  it("a day begins at midnight in the zone", () => {
    const [today] = agenda(occurrences(daily));
    expect(today?.start.toISOString()).toBe("2026-12-06T15:00:00.000Z");
    expect(dayStart("2026-12-07", "UTC").toISOString()).toBe("2026-12-07T00:00:00.000Z");
  });
});

describe("time order within a day", () => {
  it("all-day first, then by start, whatever the file's order", () => {
    const text = ics(
      ...event("c@x", "Lunch", "DTSTART;TZID=Asia/Tokyo:20261208T120000", "DTEND;TZID=Asia/Tokyo:20261208T130000"),
      ...event("a@x", "Early call", "DTSTART;TZID=Asia/Tokyo:20261208T080000"),
      ...event("d@x", "Holiday", "DTSTART;VALUE=DATE:20261208"),
      ...event("b@x", "Review", "DTSTART;TZID=Asia/Tokyo:20261208T093000", "DTEND;TZID=Asia/Tokyo:20261208T100000"),
    );
    expect(rows(byDay(agenda(occurrences(text)))["2026-12-08"])).toEqual([
      ["All day", "Holiday", null],
      ["08:00", "Early call", null],
      ["09:30–10:00", "Review", null],
      ["12:00–13:00", "Lunch", null],
    ]);
  });

  it("two events at the same time sort by title; a day past the cap counts the rest", () => {
    const text = ics(
      ...event("b@x", "Budget", "DTSTART:20261208T010000Z"),
      ...event("a@x", "Agenda", "DTSTART:20261208T010000Z"),
      ...event("c@x", "Coffee", "DTSTART:20261208T020000Z"),
    );
    const [, tue] = groupAgenda(occurrences(text), { zone: TOKYO, now: NOW, days: 7, maxPerDay: 2 });
    expect(titles(tue)).toEqual(["Agenda", "Budget"]);
    expect(tue?.more).toBe(1);
  });
});

describe("day boundaries follow the zone", () => {
  const london = ics(...event("l@x", "Call with London", "DTSTART:20261208T160000Z", "DTEND:20261208T170000Z"));

  it("16:00 UTC on Tuesday is 01:00 on Wednesday in Tokyo", () => {
    const tokyo = byDay(agenda(occurrences(london), TOKYO));
    expect(rows(tokyo["2026-12-09"])).toEqual([["01:00–02:00", "Call with London", null]]);
    expect(tokyo["2026-12-08"]?.events).toEqual([]);
    const utc = byDay(agenda(occurrences(london), "UTC"));
    expect(rows(utc["2026-12-08"])).toEqual([["16:00–17:00", "Call with London", null]]);
    expect(utc["2026-12-09"]?.events).toEqual([]);
  });

  it("'today' is the zone's: Monday in Tokyo while it is still Sunday in UTC", () => {
    expect(agenda([], TOKYO)[0]?.day).toBe("2026-12-07");
    expect(agenda([], "UTC")[0]?.day).toBe("2026-12-06");
    expect(dayKeyOf(NOW, "America/Los_Angeles")).toBe("2026-12-06");
  });

  it("floating times are read in the zone", () => {
    const floating = ics(...event("f@x", "Gym", "DTSTART:20261208T070000"));
    expect(rows(byDay(agenda(occurrences(floating), TOKYO))["2026-12-08"])).toEqual([["07:00", "Gym", null]]);
    expect(agenda(occurrences(floating), TOKYO)[1]?.events[0]?.start).toBe("2026-12-08T07:00:00");
  });

  it("titles: Today, Tomorrow, then the weekday and date", () => {
    expect(["2026-12-07", "2026-12-08", "2026-12-09"].map((d) => dayTitle(d, "2026-12-07"))).toEqual([
      "Today",
      "Tomorrow",
      "Wednesday 9 Dec",
    ]);
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
  });
});

describe("all-day events", () => {
  it("a date is the same day in every zone; a two-day one is on both days, not on the day it ends", () => {
    const text = ics(
      ...event("h@x", "Holiday", "DTSTART;VALUE=DATE:20261208"),
      ...event("o@x", "Offsite", "DTSTART;VALUE=DATE:20261210", "DTEND;VALUE=DATE:20261212"),
    );
    for (const zone of [TOKYO, "UTC", "America/Los_Angeles"]) {
      const days = byDay(agenda(occurrences(text), zone));
      expect(rows(days["2026-12-08"]), zone).toEqual([["All day", "Holiday", null]]);
      expect(rows(days["2026-12-10"]), zone).toEqual([["All day", "Offsite", "Thu 10 Dec – Fri 11 Dec"]]);
      expect(rows(days["2026-12-11"]), zone).toEqual([["All day", "Offsite", "Thu 10 Dec – Fri 11 Dec"]]);
      expect(days["2026-12-12"]?.events, zone).toEqual([]);
    }
  });

  it("today's all-day event shows all day, and one that began before today still shows", () => {
    const text = ics(...event("t@x", "Conference", "DTSTART;VALUE=DATE:20261205", "DTEND;VALUE=DATE:20261208"));
    const [today, tomorrow] = agenda(occurrences(text));
    expect(rows(today)).toEqual([["All day", "Conference", "Sat 5 Dec – Mon 7 Dec"]]);
    expect(tomorrow?.events).toEqual([]);
  });
});

describe("an event crossing midnight", () => {
  it("is on both days: when it starts and until when; then what is left of it", () => {
    const text = ics(
      ...event(
        "d@x",
        "Late dinner",
        "DTSTART;TZID=Asia/Tokyo:20261209T220000",
        "DTEND;TZID=Asia/Tokyo:20261210T013000",
      ),
      ...event("s@x", "Standup", "DTSTART;TZID=Asia/Tokyo:20261210T093000"),
    );
    const days = byDay(agenda(occurrences(text)));
    expect(rows(days["2026-12-09"])).toEqual([["22:00", "Late dinner", "until Thu 10 Dec 01:30"]]);
    expect(rows(days["2026-12-10"])).toEqual([
      ["until 01:30", "Late dinner", "since Wed 9 Dec 22:00"],
      ["09:30", "Standup", null],
    ]);
    expect(days["2026-12-10"]?.events[0]?.part).toBe("ends");
  });

  it("a longer one is 'all day' on its middle days; one that ends at midnight is not on the next day", () => {
    const text = ics(
      ...event("t@x", "Trip", "DTSTART;TZID=Asia/Tokyo:20261208T180000", "DTEND;TZID=Asia/Tokyo:20261210T120000"),
      ...event("m@x", "Party", "DTSTART;TZID=Asia/Tokyo:20261211T200000", "DTEND;TZID=Asia/Tokyo:20261212T000000"),
    );
    const days = byDay(agenda(occurrences(text)));
    expect(rows(days["2026-12-09"])).toEqual([["All day", "Trip", "until Thu 10 Dec 12:00"]]);
    expect(days["2026-12-09"]?.events[0]?.part).toBe("continues");
    expect(rows(days["2026-12-11"])).toEqual([["20:00–00:00", "Party", null]]);
    expect(days["2026-12-12"]?.events).toEqual([]);
  });
});

describe("what has ended, and what starts soon", () => {
  it("an event over before now is left out; one under way stays and starts soon; so does one within 2 h", () => {
    const text = ics(
      ...event("a@x", "Over", "DTSTART;TZID=Asia/Tokyo:20261207T060000", "DTEND;TZID=Asia/Tokyo:20261207T070000"),
      ...event("b@x", "Under way", "DTSTART;TZID=Asia/Tokyo:20261207T073000", "DTEND;TZID=Asia/Tokyo:20261207T083000"),
      ...event("c@x", "Soon", "DTSTART;TZID=Asia/Tokyo:20261207T093000"),
      ...event("d@x", "Later", "DTSTART;TZID=Asia/Tokyo:20261207T150000"),
    );
    const [today] = agenda(occurrences(text));
    expect(today?.events.map((e) => [e.title, e.startsSoon])).toEqual([
      ["Under way", true],
      ["Soon", true],
      ["Later", false],
    ]);
  });
});

describe("the fixture week (tests/fixtures/calendars/agenda.ics)", () => {
  it("reads as seven days in Tokyo", () => {
    const days = agenda(occurrences(fs.readFileSync("tests/fixtures/calendars/agenda.ics", "utf8")));
    expect(days.map((d) => titles(d))).toEqual([
      ["Daily standup"],
      ["Early call with the supplier", "Daily standup", "Lunch with Aiko"],
      ["Call with London", "Daily standup", "Late dinner with the team"],
      ["Offsite", "Late dinner with the team", "Daily standup"],
      ["Offsite", "Daily standup"],
      ["Daily standup"],
      ["Daily standup"],
    ]);
  });
});
