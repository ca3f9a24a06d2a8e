import { describe, expect, it } from "vitest";
import { describeDeltas } from "@/server/intelligence/refresh/describe-outcome";

describe("describeDeltas (the runs log's one-line summary)", () => {
  it("shows money by its currency and numbers grouped, not raw JSON", () => {
    const line = describeDeltas({
      price: { from: { amount: 39.5, currency: "USD" }, to: { amount: 35, currency: "USD" } },
      review_count: { from: 1200, to: 1350 },
    } as never);
    expect(line).toBe("price $39.50→$35.00, review_count 1,200→1,350");
  });

  it("names new signals, truncates long text and counts what it leaves out", () => {
    const line = describeDeltas(
      {
        notable_signals: { from: [], to: ["now open on Sundays"] },
        tagline: { from: "a", to: "x".repeat(60) },
        rating: { from: 4.4, to: 4.2 },
        hours: { from: "9–5", to: "9–6" },
      } as never,
      3,
    );
    expect(line).toBe(`new signal: now open on Sundays, tagline a→${"x".repeat(37)}…, rating 4.4→4.2, +1 more`);
  });
});
