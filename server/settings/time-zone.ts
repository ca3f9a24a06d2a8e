import { z } from "zod";

/**
 * Which time zone a person reads Bellwether in (docs/feed.md, "Time zone"): the one chosen in Settings; while that is
 * unset, the browser's, which every page stores in a cookie so the server's first paint already uses it; with
 * neither, UTC. Days of the agenda begin at midnight in this zone, and every time a page shows is written in it.
 */

/** The cookie every page writes with the browser's zone (`Intl.DateTimeFormat().resolvedOptions().timeZone`). */
export const TIME_ZONE_COOKIE = "bellwether-tz";

export const DEFAULT_TIME_ZONE = "UTC";

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** An IANA zone name the platform knows ("Asia/Tokyo"); anything else (a cookie is the browser's to write) fails. */
export const ZTimeZoneSchema = z.string().trim().min(1).max(64).refine(isTimeZone);

export const ZPersonTimeZoneSchema = z.object({
  zone: z.string(),
  /** Where it came from: Settings, the browser (cookie), or neither (UTC). */
  source: z.enum(["settings", "browser", "default"]),
});
export type TPersonTimeZone = z.infer<typeof ZPersonTimeZoneSchema>;

/** A zone name, or null when it is not one. */
export function parseTimeZone(value: string | null | undefined): string | null {
  const parsed = ZTimeZoneSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The Settings zone when it is valid, else the browser's, else UTC. */
export function resolvePersonTimeZone(
  setting: string | null | undefined,
  browser: string | null | undefined,
): TPersonTimeZone {
  const fromSettings = parseTimeZone(setting);
  if (fromSettings) return { zone: fromSettings, source: "settings" };
  const fromBrowser = parseTimeZone(browser);
  if (fromBrowser) return { zone: fromBrowser, source: "browser" };
  return { zone: DEFAULT_TIME_ZONE, source: "default" };
}

/** The browser's zone from a request's Cookie header (the API layer reads it; the cookie may be absent or junk). */
export function timeZoneFromCookieHeader(header: string | null | undefined): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== TIME_ZONE_COOKIE) continue;
    try {
      return parseTimeZone(decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      return null; // a malformed escape
    }
  }
  return null;
}
