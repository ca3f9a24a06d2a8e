import { describe, expect, it } from "vitest";
import { fieldLabel, formatChange, formatFieldValue, formatRelativeChange } from "@/contracts/definition/format-value";

/** Values for people: money by currency, integers as integers, decimals as typed, percentages rounded. */
describe("formatFieldValue", () => {
  it("formats money by its currency (object values and money-typed numbers)", () => {
    expect(formatFieldValue({ amount: 39.5, currency: "USD" })).toBe("$39.50");
    expect(formatFieldValue({ amount: 1234.5, currency: "EUR" })).toBe("€1,234.50");
    expect(formatFieldValue({ amount: 900, currency: "JPY" })).toBe("¥900");
    expect(formatFieldValue(12, { type: "money", currency: "GBP" })).toBe("£12.00");
    // Not an ISO code Intl knows: the amount and the code, never raw JSON.
    expect(formatFieldValue({ amount: 3, currency: "12" })).toBe("3.00 12");
  });

  it("formats integers as integers and decimals as decimals, with units", () => {
    expect(formatFieldValue(1200, { type: "integer", unit: "units" })).toBe("1,200 units");
    expect(formatFieldValue(4, { type: "number", unit: "stars" })).toBe("4.0 stars");
    expect(formatFieldValue(4.25, { type: "number" })).toBe("4.25");
    expect(formatFieldValue(0.12345, { type: "number" })).toBe("0.1235");
    expect(formatFieldValue(0.1 + 0.2, { type: "number" })).toBe("0.3");
    expect(formatFieldValue(312)).toBe("312");
  });

  it("formats the other types plainly", () => {
    expect(formatFieldValue(true, { type: "boolean" })).toBe("yes");
    expect(formatFieldValue(["a", "b"], { type: "string_list" })).toBe("a, b");
    expect(formatFieldValue([], { type: "string_list" })).toBe("—");
    expect(formatFieldValue(null)).toBe("—");
    expect(formatFieldValue("InStock", { type: "enum" })).toBe("InStock");
  });
});

describe("changes", () => {
  it("rounds relative changes: whole percents from 10 %, one decimal below", () => {
    expect(formatRelativeChange(39.2, 35.2)).toBe("−10%");
    expect(formatRelativeChange(100, 104.56)).toBe("+4.6%");
    expect(formatRelativeChange(100, 100.01)).toBe("±0%");
    expect(formatRelativeChange(0, 5)).toBeNull();
  });

  it("states a change with both values and, for numbers, the rounded percentage", () => {
    expect(formatChange({ amount: 39.5, currency: "USD" }, { amount: 35, currency: "USD" })).toBe(
      "$39.50 → $35.00 (−11%)",
    );
    expect(formatChange(312, 470, { type: "integer", unit: "reviews" })).toBe("312 reviews → 470 reviews (+51%)");
    expect(formatChange("InStock", "OutOfStock", { type: "enum" })).toBe("InStock → OutOfStock");
  });

  it("labels field names for people", () => {
    expect(fieldLabel("units_left")).toBe("Units left");
    expect(fieldLabel("price")).toBe("Price");
  });
});
