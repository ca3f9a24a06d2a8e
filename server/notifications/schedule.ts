/**
 * When a notice is due (docs/design.md §10; docs/notifications.md: quiet hours, the digest): pure, with the
 * clock passed in. Local times are read in the person's time zone (UserSettings.timezone, UTC when unset). Every
 * notice held to the same local minute gets the same instant, so the sender finds them together and sends one
 * message. A daylight-saving jump between now and that minute shifts it by the jump (accepted: it is a digest).
 */

export type TRouting = "immediate" | "digest" | "off";
export type TQuietHours = { startMinute: number | null; endMinute: number | null };

const DAY_MINUTES = 24 * 60;

/** Minutes after local midnight of `at` in `timeZone` (an unknown zone counts as UTC). */
export function localMinuteOfDay(at: Date, timeZone: string | null): number {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat("en-US", {
      timeZone: timeZone ?? "UTC",
      hour: "numeric",
      minute: "numeric",
      hourCycle: "h23",
    }).formatToParts(at);
  } catch {
    return at.getUTCHours() * 60 + at.getUTCMinutes();
  }
  const hour = Number(parts.find((p) => p.type === "hour")?.value ?? 0);
  const minute = Number(parts.find((p) => p.type === "minute")?.value ?? 0);
  return (hour % 24) * 60 + minute;
}

/** The next instant (on a whole minute, strictly after `now`'s minute) whose local time is `minuteOfDay`. */
export function nextLocalMinute(now: Date, timeZone: string | null, minuteOfDay: number): Date {
  const base = Math.floor(now.getTime() / 60_000) * 60_000;
  const current = localMinuteOfDay(now, timeZone);
  const ahead = (minuteOfDay - current + DAY_MINUTES) % DAY_MINUTES || DAY_MINUTES;
  return new Date(base + ahead * 60_000);
}

export function inQuietHours(now: Date, timeZone: string | null, quiet: TQuietHours): boolean {
  const { startMinute: start, endMinute: end } = quiet;
  if (start === null || end === null || start === end) return false;
  const m = localMinuteOfDay(now, timeZone);
  return start < end ? m >= start && m < end : m >= start || m < end;
}

/**
 * When a notice routed `routing` goes out and whether it is grouped with others due at the same time: immediate
 * → now, unless quiet hours hold it to their end (grouped); digest → the next digest hour (grouped); off → null.
 */
export function dueFor(
  routing: TRouting,
  now: Date,
  person: { timeZone: string | null; quiet: TQuietHours; digestHour: number },
): { dueAt: Date; grouped: boolean } | null {
  if (routing === "off") return null;
  if (routing === "digest")
    return { dueAt: nextLocalMinute(now, person.timeZone, person.digestHour * 60), grouped: true };
  if (inQuietHours(now, person.timeZone, person.quiet) && person.quiet.endMinute !== null) {
    return { dueAt: nextLocalMinute(now, person.timeZone, person.quiet.endMinute), grouped: true };
  }
  return { dueAt: now, grouped: false };
}

/** Exponential backoff between delivery attempts: 30 s, 1, 2, 4 … minutes, capped at 1 hour. */
export function retryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);
}
