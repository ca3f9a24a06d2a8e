import { afterEach, describe, expect, it } from "vitest";
import { formatInZone, formatUtc, toDate } from "@/components/format/date-time";

const INSTANT = "2026-12-01T01:07:30.000Z";
const originalTz = process.env.TZ;

afterEach(() => {
  if (originalTz === undefined) delete process.env.TZ;
  else process.env.TZ = originalTz;
});

describe("formatUtc (a person with no zone in Settings and no browser cookie yet)", () => {
  it("shows the UTC date and minute with a fixed English month, whatever the runtime's time zone", () => {
    const seen = ["UTC", "America/Los_Angeles", "Asia/Kathmandu", "Pacific/Kiritimati"].map((tz) => {
      process.env.TZ = tz;
      return formatUtc(new Date(INSTANT));
    });
    expect(new Set(seen)).toEqual(new Set(["1 Dec 2026, 01:07 UTC"]));
  });

  it("pads hours and minutes and handles month ends", () => {
    expect(formatUtc(new Date("2027-01-31T23:59:59Z"))).toBe("31 Jan 2027, 23:59 UTC");
    expect(formatUtc(new Date("2026-03-09T00:00:00Z"))).toBe("9 Mar 2026, 00:00 UTC");
  });
});

describe("formatInZone (every time a page shows, server and browser alike)", () => {
  it("writes the wall time in the person's zone, whatever the runtime's own zone", () => {
    const seen = ["UTC", "America/Los_Angeles", "Asia/Kathmandu"].map((tz) => {
      process.env.TZ = tz;
      return [formatInZone(new Date(INSTANT), "America/Los_Angeles"), formatInZone(new Date(INSTANT), "Asia/Tokyo")];
    });
    expect(new Set(seen.map((s) => s.join(" | ")))).toEqual(
      new Set(["30 Nov 2026, 17:07 America/Los_Angeles | 1 Dec 2026, 10:07 Asia/Tokyo"]),
    );
  });

  it("UTC reads as formatUtc; a daylight-saving change moves the wall time", () => {
    expect(formatInZone(new Date(INSTANT), "UTC")).toBe(formatUtc(new Date(INSTANT)));
    expect(formatInZone(new Date("2026-07-01T12:00:00Z"), "Europe/Berlin")).toBe("1 Jul 2026, 14:00 Europe/Berlin");
    expect(formatInZone(new Date("2026-12-01T12:00:00Z"), "Europe/Berlin")).toBe("1 Dec 2026, 13:00 Europe/Berlin");
  });
});

describe("toDate", () => {
  it("accepts Dates, ISO strings and epoch milliseconds, and rejects garbage", () => {
    const d = new Date(INSTANT);
    expect(toDate(d)).toBe(d);
    expect(toDate(INSTANT)?.getTime()).toBe(d.getTime());
    expect(toDate(d.getTime())?.toISOString()).toBe(INSTANT);
    expect(toDate("tomorrow-ish")).toBeNull();
  });
});
