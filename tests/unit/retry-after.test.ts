import { describe, expect, it } from "vitest";
import { httpError } from "@/server/capabilities/web-scrape/fetch-errors";
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from "@/server/lib/retry-after";

const NOW = Date.parse("2026-03-01T12:00:00Z");

describe("parseRetryAfter", () => {
  it("reads delay-seconds", () => {
    expect(parseRetryAfter("30", NOW)).toBe(30_000);
    expect(parseRetryAfter(" 120 ", NOW)).toBe(120_000);
  });

  it("reads an HTTP date as the time left until then", () => {
    expect(parseRetryAfter("Sun, 01 Mar 2026 12:00:30 GMT", NOW)).toBe(30_000);
    expect(parseRetryAfter("Sunday, 01-Mar-26 12:01:00 GMT", NOW)).toBe(60_000);
    expect(parseRetryAfter("Sun Mar  1 12:00:10 2026", NOW)).toBe(10_000);
  });

  it("ignores junk, a missing header, zero and a time already past", () => {
    for (const junk of [undefined, null, "", "soon", "-5", "1.5", "30s", "2026-03-01T12:00:30Z", "0"])
      expect(parseRetryAfter(junk, NOW)).toBeUndefined();
    expect(parseRetryAfter("Sun, 01 Mar 2026 11:59:00 GMT", NOW)).toBeUndefined();
  });

  it("caps absurd values", () => {
    expect(parseRetryAfter("999999999", NOW)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter("Fri, 01 Jan 2100 00:00:00 GMT", NOW)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter("3600", NOW)).toBe(3_600_000);
  });
});

describe("httpError with Retry-After", () => {
  it("puts retryAfterMs in a 429's and a 503's details, and says how long", () => {
    const limited = httpError(429, "Too Many Requests", "https://a.test/p", "30");
    expect(limited.code).toBe("RATE_LIMITED");
    expect(limited.retryable).toBe(true);
    expect(limited.details).toEqual({ httpStatus: 429, url: "https://a.test/p", retryAfterMs: 30_000 });
    expect(limited.message).toContain("wait 30 s");
    const unavailable = httpError(503, "Service Unavailable", "https://a.test/p", "120");
    expect(unavailable.details?.retryAfterMs).toBe(120_000);
    expect(unavailable.retryable).toBe(true);
  });

  it("leaves it out for other statuses and for a 429 without a usable header", () => {
    expect(httpError(500, "Internal Server Error", "https://a.test/p", "30").details).not.toHaveProperty(
      "retryAfterMs",
    );
    expect(httpError(404, "Not Found", "https://a.test/p", "30").details).not.toHaveProperty("retryAfterMs");
    const bare = httpError(429, "Too Many Requests", "https://a.test/p", "later");
    expect(bare.details).toEqual({ httpStatus: 429, url: "https://a.test/p" });
    expect(bare.message).toContain("retried later");
  });
});
