import { describe, expect, it } from "vitest";
import { parseEnv } from "@/server/env";
import { renderChanges, type TNoticeChange } from "@/server/notifications/render-message";
import { dueFor, inQuietHours, localMinuteOfDay, nextLocalMinute, retryDelayMs } from "@/server/notifications/schedule";

const person = (quiet: [number, number] | null, timeZone: string | null = "America/New_York") => ({
  timeZone,
  quiet: { startMinute: quiet?.[0] ?? null, endMinute: quiet?.[1] ?? null },
  digestHour: 8,
});

describe("notification schedule (injected clock)", () => {
  it("reads local time in the person's zone", () => {
    const at = new Date("2026-07-01T03:30:00Z"); // 23:30 the day before in New York (EDT)
    expect(localMinuteOfDay(at, "America/New_York")).toBe(23 * 60 + 30);
    expect(localMinuteOfDay(at, null)).toBe(3 * 60 + 30);
    expect(localMinuteOfDay(at, "Not/AZone")).toBe(3 * 60 + 30);
  });

  it("quiet hours across midnight hold an immediate notice until they end, grouped", () => {
    const night = new Date("2026-07-01T03:30:00Z"); // 23:30 local, quiet 22:00–07:00
    expect(inQuietHours(night, "America/New_York", person([22 * 60, 7 * 60]).quiet)).toBe(true);
    const due = dueFor("immediate", night, person([22 * 60, 7 * 60]));
    expect(due).toEqual({ dueAt: new Date("2026-07-01T11:00:00Z"), grouped: true }); // 07:00 EDT
    // Two notices in the same quiet spell get the same instant, so they go out as one message.
    expect(dueFor("immediate", new Date("2026-07-01T05:12:40Z"), person([22 * 60, 7 * 60]))?.dueAt).toEqual(due?.dueAt);
    const day = new Date("2026-07-01T15:00:00Z"); // 11:00 local
    expect(dueFor("immediate", day, person([22 * 60, 7 * 60]))).toEqual({ dueAt: day, grouped: false });
    expect(dueFor("off", day, person(null))).toBeNull();
  });

  it("the digest is the next digest hour, also when it has passed today", () => {
    expect(dueFor("digest", new Date("2026-07-01T11:59:00Z"), person(null))?.dueAt).toEqual(
      new Date("2026-07-01T12:00:00Z"),
    );
    expect(dueFor("digest", new Date("2026-07-01T12:00:30Z"), person(null))?.dueAt).toEqual(
      new Date("2026-07-02T12:00:00Z"),
    );
    expect(nextLocalMinute(new Date("2026-07-01T12:00:30Z"), null, 0)).toEqual(new Date("2026-07-02T00:00:00Z"));
  });

  it("backoff doubles and is capped", () => {
    expect([1, 2, 3, 4].map(retryDelayMs)).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(retryDelayMs(30)).toBe(3_600_000);
  });
});

describe("notification message", () => {
  const change: TNoticeChange = {
    changeId: "c1",
    trackerId: "t1",
    decision: "<script>alert(1)</script> price",
    materiality: "material",
    capturedAt: new Date("2026-07-01T00:00:00Z"),
    url: "https://bell.example.com/trackers/t1#change-c1",
    fields: [{ field: "price", label: "Price", change: "$10.00 → $8.00 (−20%)", reason: "Agent: <b>cheaper</b>" }],
    insight: "Rival <img src=x> undercuts you",
  };
  it("keeps model and page text plain: escaped in HTML, as is in text", () => {
    const m = renderChanges([change], { grouped: false });
    expect(m.html).not.toContain("<script>");
    expect(m.html).not.toContain("<img");
    expect(m.html).toContain("&lt;script&gt;");
    expect(m.text).toContain("Why it matters: Rival <img src=x> undercuts you");
    expect(m.subject).toContain("Price $10.00 → $8.00 (−20%)");
  });
  it("without slot text (rules mode) the message has no insight line", () => {
    const m = renderChanges([{ ...change, insight: null }], { grouped: false });
    expect(m.text).not.toContain("Why it matters");
    expect(m.text).toContain("Price: $10.00 → $8.00 (−20%)");
  });
});

describe("SMTP settings", () => {
  it("need a sender, and a URL must be smtp(s)", () => {
    expect(() => parseEnv({ SMTP_URL: "smtp://127.0.0.1:2525" })).toThrow(/SMTP_FROM is required/);
    expect(() => parseEnv({ SMTP_URL: "http://x", SMTP_FROM: "a@b.c" })).toThrow(/SMTP_URL must be an smtp/);
    expect(parseEnv({ SMTP_HOST: "mail", SMTP_FROM: "a@b.c", SMTP_PASSWORD: "pw" })).toMatchObject({
      SMTP_PORT: 587,
      SMTP_SECURE: false,
    });
  });
});
