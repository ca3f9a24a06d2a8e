import { afterEach, describe, expect, it } from "vitest";
import { formatLocal, formatUtc, toDate } from "@/components/format/date-time";

const INSTANT = "2026-12-01T01:07:30.000Z";
const originalTz = process.env.TZ;

afterEach(() => {
  if (originalTz === undefined) delete process.env.TZ;
  else process.env.TZ = originalTz;
});

describe("formatUtc (what the server's HTML and the first client render show)", () => {
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

describe("formatLocal (after hydration)", () => {
  it("uses the reader's zone and locale", () => {
    expect(formatLocal(new Date(INSTANT), { locale: "de-DE", timeZone: "America/Los_Angeles" })).toBe(
      "30.11.2026, 17:07",
    );
    expect(formatLocal(new Date(INSTANT), { locale: "de-DE", timeZone: "Asia/Tokyo" })).toBe("01.12.2026, 10:07");
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
