import { describe, expect, it } from "vitest";
import { formatInZone } from "@/components/format/date-time";
import { clockTime, stampIn } from "@/server/feed/agenda/zoned-day";
import { resolvePersonTimeZone, TIME_ZONE_COOKIE, timeZoneFromCookieHeader } from "@/server/settings/time-zone";

/** Which zone the feed is read in, and how its times read (docs/feed.md, "Time zone"). */
describe("the feed's time zone", () => {
  it("Settings first, then the browser's (its cookie), then UTC; a name no platform knows is skipped", () => {
    expect(resolvePersonTimeZone("Asia/Tokyo", "America/Los_Angeles")).toEqual({
      zone: "Asia/Tokyo",
      source: "settings",
    });
    expect(resolvePersonTimeZone(null, "America/Los_Angeles")).toEqual({
      zone: "America/Los_Angeles",
      source: "browser",
    });
    expect(resolvePersonTimeZone("Mars/Olympus_Mons", "nonsense")).toEqual({ zone: "UTC", source: "default" });
    expect(resolvePersonTimeZone("", undefined)).toEqual({ zone: "UTC", source: "default" });
  });

  it("reads the browser's zone from a Cookie header, encoded as the page writes it; junk is no zone", () => {
    expect(timeZoneFromCookieHeader(`a=1; ${TIME_ZONE_COOKIE}=America%2FLos_Angeles; b=2`)).toBe("America/Los_Angeles");
    expect(timeZoneFromCookieHeader(`${TIME_ZONE_COOKIE}=Asia/Tokyo`)).toBe("Asia/Tokyo");
    expect(timeZoneFromCookieHeader(`${TIME_ZONE_COOKIE}=%E0%A4%A`)).toBeNull();
    expect(timeZoneFromCookieHeader(`${TIME_ZONE_COOKIE}=<script>`)).toBeNull();
    expect(timeZoneFromCookieHeader(`other-${TIME_ZONE_COOKIE}=Asia%2FTokyo`)).toBeNull();
    expect(timeZoneFromCookieHeader(null)).toBeNull();
  });

  it("an instant reads the same on server and client, in the zone, whatever the process's own zone", () => {
    const at = new Date("2026-12-12T14:30:00Z");
    expect(formatInZone(at, "Asia/Tokyo")).toBe("12 Dec 2026, 23:30 Asia/Tokyo");
    expect(formatInZone(at, "America/Los_Angeles")).toBe("12 Dec 2026, 06:30 America/Los_Angeles");
    expect(formatInZone(at, "UTC")).toBe("12 Dec 2026, 14:30 UTC");
    expect(formatInZone(new Date("2026-12-12T15:00:00Z"), "Asia/Tokyo")).toBe("13 Dec 2026, 00:00 Asia/Tokyo");
    expect(formatInZone(at, "Not/A_Zone")).toBe("12 Dec 2026, 14:30 UTC");
    expect(clockTime(at, "Asia/Tokyo")).toBe("23:30");
    expect(stampIn(at, "Asia/Tokyo")).toBe("2026-12-12 23:30 Asia/Tokyo");
    expect(stampIn(at, "UTC")).toBe("2026-12-12 14:30 UTC");
  });
});
