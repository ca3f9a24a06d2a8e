import { describe, expect, it } from "vitest";
import { formatAxisValue, roundPercentsInText } from "@/components/format/chart-format";
import { formatAxisTime, formatUtcDay, parseUtcDay } from "@/components/format/date-time";

describe("formatAxisValue (chart ticks read like the field's values, large ones compact)", () => {
  it("money by currency, compact from 10,000", () => {
    expect(formatAxisValue(39.5, { type: "money", currency: "USD" })).toBe("$39.50");
    expect(formatAxisValue(12_500, { type: "money", currency: "EUR" })).toBe("€12.5K");
  });

  it("integers as integers, decimals keep a decimal, no format falls back on the value's shape", () => {
    expect(formatAxisValue(1200, { type: "integer" })).toBe("1,200");
    expect(formatAxisValue(4, { type: "number" })).toBe("4.0");
    expect(formatAxisValue(4.25, { type: "number" })).toBe("4.25");
    expect(formatAxisValue(3, null)).toBe("3");
    expect(formatAxisValue(2_400_000, { type: "integer" })).toBe("2.4M");
  });
});

describe("roundPercentsInText", () => {
  it("rounds long percentages in stored reasons to one decimal and leaves short ones", () => {
    expect(roundPercentsInText("price: −10.20408163% ≥ 5% → material")).toBe("price: −10.2% ≥ 5% → material");
    expect(roundPercentsInText("+4.99999% < 12.5%")).toBe("+5% < 12.5%");
    expect(roundPercentsInText("rating: +0.5 ≥ 0.2, 1.25% stays")).toBe("rating: +0.5 ≥ 0.2, 1.25% stays");
  });
});

describe("days and axis times", () => {
  it("a UTC day reads the same on every server and browser (that day, not shifted into a zone)", () => {
    const day = parseUtcDay("2026-11-29");
    expect(day && formatUtcDay(day)).toBe("29 Nov 2026");
    expect(parseUtcDay("2026-02-31")).toBeNull();
    expect(parseUtcDay("yesterday")).toBeNull();
  });

  it("a time axis shows seconds within five minutes, times within two days and dates beyond", () => {
    const at = new Date("2026-12-01T13:07:00Z");
    expect(formatAxisTime(at, 60_000, { locale: "en-GB", timeZone: "UTC" })).toBe("13:07:00");
    expect(formatAxisTime(at, 3_600_000, { locale: "en-GB", timeZone: "UTC" })).toBe("13:07");
    expect(formatAxisTime(at, 10 * 86_400_000, { locale: "en-GB", timeZone: "UTC" })).toBe("1 Dec");
  });
});
