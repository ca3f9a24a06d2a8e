import { describe, expect, it } from "vitest";
import type { TFeedItem } from "@/contracts/feed-item";
import { buildHarnessInput, hashHarnessInput } from "@/server/enhancement/build-input";
import { agendaDayItem } from "@/server/feed/agenda/agenda-card";
import { groupAgenda } from "@/server/feed/agenda/group-agenda";
import { dayKeyOf } from "@/server/feed/agenda/zoned-day";
import type { TCalendarOccurrence } from "@/server/feed/calendar/parse-calendar";
import type { TPersonTimeZone } from "@/server/settings/time-zone";

/**
 * Seed 000: a calendar card declares context, logistics and weather; an event starting soon is a context change.
 * The calendar is an agenda (docs/feed.md, "Agenda"): the slots are on the card of the event's day.
 */

const UTC: TPersonTimeZone = { zone: "UTC", source: "default" };
const start = new Date("2026-12-01T19:00:00Z");
const dinner: TCalendarOccurrence = {
  uid: "dinner",
  recurrenceId: null,
  summary: "Dinner at The Ivy",
  location: "The Ivy, West St",
  allDay: false,
  start: start.toISOString(),
  end: null,
};
const hoursBefore = (h: number) => new Date(start.getTime() - h * 3_600_000);

/** The day card holding `occurrence`, built as the calendar source builds it (groupAgenda + agendaDayItem). */
function dayCard(occurrence: TCalendarOccurrence, now: Date): TFeedItem {
  const today = dayKeyOf(now, UTC.zone);
  const days = groupAgenda([occurrence], { zone: UTC.zone, now, days: 7, maxPerDay: 20 });
  const day = days.find((d) => d.events.length > 0);
  if (!day) throw new Error("the event is on no day of the agenda");
  return agendaDayItem(day, { today, zone: UTC, withNote: day.day === today });
}
const hashAt = (now: Date) => hashHarnessInput(buildHarnessInput([dayCard(dinner, now)], ""));

describe("calendar card slots", () => {
  it("declares context, logistics and weather, each shown by a Slot element in the card", () => {
    const item = dayCard(dinner, hoursBefore(5));
    expect(item.id).toBe("agenda:2026-12-01");
    expect(Object.keys(item.slots ?? {})).toEqual(["context", "logistics", "weather"]);
    for (const slot of Object.values(item.slots ?? {})) expect(slot).toMatchObject({ content: null });
    const slotNames = Object.values(item.ui?.elements ?? {})
      .filter((e) => e.type === "Slot")
      .map((e) => e.props.name);
    expect(slotNames).toEqual(["context", "logistics", "weather"]);
  });

  it("an event coming within 2 hours changes the enhancement input once, not every minute", () => {
    expect(hashAt(hoursBefore(5))).toBe(hashAt(hoursBefore(3)));
    expect(hashAt(hoursBefore(1.5))).not.toBe(hashAt(hoursBefore(3)));
    expect(hashAt(hoursBefore(1.5))).toBe(hashAt(hoursBefore(0.25)));
    const soon = dayCard(dinner, hoursBefore(1));
    expect(soon.data.startsSoon).toBe(true);
    expect(soon.data.events).toMatchObject([{ title: "Dinner at The Ivy", startsSoon: true }]);
    expect(dayCard(dinner, hoursBefore(3)).data.startsSoon).toBeUndefined();
    // All-day events have no start time to be "soon" about.
    const allDay = { ...dinner, allDay: true, start: "2026-12-01" };
    const allDayCard = dayCard(allDay, hoursBefore(1));
    expect(allDayCard.data.startsSoon).toBeUndefined();
    expect(allDayCard.data.events).toEqual([expect.not.objectContaining({ startsSoon: expect.anything() })]);
  });
});
