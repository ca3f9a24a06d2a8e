import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { validateFeedSpec } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";
import { buildHarnessInput, hashHarnessInput } from "@/server/enhancement/build-input";
import { AGENDA_DAY_TYPE, agendaDayItem } from "@/server/feed/agenda/agenda-card";
import { groupAgenda } from "@/server/feed/agenda/group-agenda";
import { parseCalendar } from "@/server/feed/calendar/parse-calendar";
import { memoOfCard } from "@/server/feed/card-memo";
import type { TPersonTimeZone } from "@/server/settings/time-zone";

/** A day of the agenda as a card (docs/feed.md, "Agenda"): one card per day, its spec valid, its slots for the day. */
const NOW = new Date("2026-12-06T23:00:00Z"); // Monday 7 Dec 08:00 in Tokyo
const TOKYO: TPersonTimeZone = { zone: "Asia/Tokyo", source: "settings" };
const { occurrences } = parseCalendar(fs.readFileSync("tests/fixtures/calendars/agenda.ics", "utf8"), {
  from: new Date("2026-11-30T00:00:00Z"),
  to: new Date("2027-01-07T00:00:00Z"),
});
const week = (now = NOW) => groupAgenda(occurrences, { zone: TOKYO.zone, now, days: 7, maxPerDay: 20 });
const cards = (now = NOW) =>
  week(now).map((d, i) => agendaDayItem(d, { today: week(now)[0]?.day ?? "", zone: TOKYO, withNote: i === 0 }));
type TRow = { time: string; title: string; at: string; detail?: string | null };
const listOf = (item: TFeedItem | undefined) =>
  Object.values(item?.ui?.elements ?? {}).find((e) => e.type === "AgendaList")?.props as
    | { label: string; events: TRow[] }
    | undefined;
const textsOf = (item: TFeedItem | undefined) =>
  Object.values(item?.ui?.elements ?? {}).flatMap((e) =>
    e.type === "Text" || e.type === "Heading" ? [e.props.text] : [],
  );

describe("agenda day cards", () => {
  it("one card per day, titled Today, Tomorrow, then by weekday; every spec passes the catalog", () => {
    const all = cards();
    expect(all.map((c) => [c.id, c.type, c.data.title])).toEqual([
      ["agenda:2026-12-07", AGENDA_DAY_TYPE, "Today"],
      ["agenda:2026-12-08", AGENDA_DAY_TYPE, "Tomorrow"],
      ["agenda:2026-12-09", AGENDA_DAY_TYPE, "Wednesday 9 Dec"],
      ["agenda:2026-12-10", AGENDA_DAY_TYPE, "Thursday 10 Dec"],
      ["agenda:2026-12-11", AGENDA_DAY_TYPE, "Friday 11 Dec"],
      ["agenda:2026-12-12", AGENDA_DAY_TYPE, "Saturday 12 Dec"],
      ["agenda:2026-12-13", AGENDA_DAY_TYPE, "Sunday 13 Dec"],
    ]);
    for (const card of all) expect(validateFeedSpec(card.ui)).toMatchObject({ ok: true });
    expect(textsOf(all[0])).toEqual(["Today", "Monday 7 Dec", "Times in Asia/Tokyo, your time zone in Settings."]);
    // The weekday cards say their date once (in the title); only the first card names the zone.
    expect(textsOf(all[2])).toEqual(["Wednesday 9 Dec"]);
  });

  it("its list: times in the zone, in order, each with the instant or day it stands for", () => {
    const tuesday = listOf(cards()[1]);
    expect(tuesday?.label).toBe("Tomorrow, Tuesday 8 Dec");
    expect(tuesday?.events.map((e) => [e.time, e.title, e.at])).toEqual([
      ["08:00–08:30", "Early call with the supplier", "2026-12-07T23:00:00.000Z"],
      ["09:30–09:45", "Daily standup", "2026-12-08T00:30:00.000Z"],
      ["12:00–13:00", "Lunch with Aiko", "2026-12-08T03:00:00.000Z"],
    ]);
    const thursday = listOf(cards()[3]);
    expect(thursday?.events.map((e) => [e.time, e.title, e.at])).toEqual([
      ["All day", "Offsite", "2026-12-10"],
      ["until 01:30", "Late dinner with the team", "2026-12-09T16:30:00.000Z"],
      ["09:30–09:45", "Daily standup", "2026-12-10T00:30:00.000Z"],
    ]);
  });

  it("the data the model reads has the day's events with their times; slots are the day's", () => {
    const [today, tomorrow] = cards();
    expect(tomorrow?.data).toMatchObject({
      day: "2026-12-08",
      title: "Tomorrow",
      today: false,
      timeZone: "Asia/Tokyo",
      events: [
        { title: "Early call with the supplier", time: "08:00–08:30" },
        { title: "Daily standup", time: "09:30–09:45", recurring: true },
        { title: "Lunch with Aiko", time: "12:00–13:00", location: "Tsukiji Outer Market" },
      ],
    });
    expect(Object.keys(tomorrow?.slots ?? {})).toEqual(["context", "logistics", "weather"]);
    expect(today?.data.today).toBe(true);
  });

  it("today's standup becoming imminent changes the enhancement's input; an hour earlier it does not yet", () => {
    const hash = (now: Date) => hashHarnessInput(buildHarnessInput(cards(now).slice(0, 1), ""));
    const at = (h: number) => new Date(Date.UTC(2026, 11, 7, h - 9)); // h:00 in Tokyo on 7 Dec
    expect(at(8).toISOString()).toBe(NOW.toISOString());
    expect(cards(at(7))[0]?.data.startsSoon).toBeUndefined();
    expect(cards(at(8))[0]?.data.startsSoon).toBe(true);
    expect(hash(at(7))).not.toBe(hash(at(8)));
  });

  it("an empty today says so, without slots; a long title is cut to what the catalog takes", () => {
    const [empty] = groupAgenda([], { zone: "UTC", now: NOW, days: 7, maxPerDay: 20 });
    const card = agendaDayItem(empty as NonNullable<typeof empty>, {
      today: "2026-12-06",
      zone: { zone: "UTC", source: "default" },
      withNote: true,
    });
    expect(textsOf(card)).toEqual([
      "Today",
      "Sunday 6 Dec",
      "Nothing on your calendar for the rest of today.",
      "Times in UTC: set your time zone in Settings.",
    ]);
    expect(card.slots).toBeUndefined();
    const long = groupAgenda(
      [
        {
          uid: "l",
          recurrenceId: null,
          summary: "x".repeat(500),
          location: null,
          allDay: false,
          start: "2026-12-07T01:00:00.000Z",
          end: null,
        },
      ],
      { zone: "UTC", now: NOW, days: 7, maxPerDay: 20 },
    );
    const longCard = agendaDayItem(long[1] as NonNullable<(typeof long)[1]>, {
      today: "2026-12-06",
      zone: { zone: "UTC", source: "default" },
      withNote: false,
    });
    expect(validateFeedSpec(longCard.ui)).toMatchObject({ ok: true });
    expect(listOf(longCard)?.events[0]?.title).toHaveLength(300);
  });

  it("is keyed by its content (card-memo.ts): the same day again shares its entry; any change is another card", () => {
    const [a] = cards();
    const [b] = cards();
    expect(memoOfCard(a as TFeedItem)).toBeDefined();
    expect(memoOfCard(a as TFeedItem)).toBe(memoOfCard(b as TFeedItem));
    const tuesday = week()[1] as NonNullable<ReturnType<typeof week>[1]>;
    const base = { today: "2026-12-07", zone: TOKYO, withNote: false };
    const variants = [
      agendaDayItem(tuesday, base),
      agendaDayItem(tuesday, { ...base, withNote: true }),
      agendaDayItem(tuesday, { ...base, today: "2026-12-08" }),
      agendaDayItem(tuesday, { ...base, zone: { zone: "Asia/Tokyo", source: "browser" } }),
      agendaDayItem({ ...tuesday, more: 2 }, base),
      ...tuesday.events.flatMap((_, i) =>
        (["title", "location", "time", "detail", "start", "end"] as const).map((field) =>
          agendaDayItem(
            { ...tuesday, events: tuesday.events.map((e, j) => (j === i ? { ...e, [field]: `${e[field]}x` } : e)) },
            base,
          ),
        ),
      ),
    ];
    expect(new Set(variants.map((v) => memoOfCard(v))).size).toBe(variants.length);
  });
});
