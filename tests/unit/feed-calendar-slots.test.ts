import { describe, expect, it } from "vitest";
import { buildHarnessInput, hashHarnessInput } from "@/server/enhancement/build-input";
import { eventItem } from "@/server/feed/sources/calendar-source";

/** Seed 000: a calendar card declares context, logistics and weather; an event starting soon is a context change. */

const start = new Date("2026-12-01T19:00:00Z");
const dinner = {
  uid: "dinner",
  recurrenceId: null,
  summary: "Dinner at The Ivy",
  location: "The Ivy, West St",
  allDay: false,
  start: start.toISOString(),
  end: null,
};
const hoursBefore = (h: number) => new Date(start.getTime() - h * 3_600_000);
const hashAt = (now: Date) => hashHarnessInput(buildHarnessInput([eventItem(dinner, start, null, now)], ""));

describe("calendar card slots", () => {
  it("declares context, logistics and weather, each shown by a Slot element in the card", () => {
    const item = eventItem(dinner, start, null, hoursBefore(5));
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
    expect(eventItem(dinner, start, null, hoursBefore(1)).data.startsSoon).toBe(true);
    // All-day events have no start time to be "soon" about.
    const allDay = { ...dinner, allDay: true, start: "2026-12-01" };
    expect(eventItem(allDay, start, null, hoursBefore(1)).data.startsSoon).toBeUndefined();
  });
});
