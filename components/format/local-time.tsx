"use client";

import { useCallback } from "react";
import { formatInZone, formatUtcDay, parseUtcDay, type TInstant, toDate } from "./date-time";
import { useTimeZone } from "./time-zone";

/** A formatter for places that need a string (an SVG title, an aria-label), in the page's zone. */
export function useFormatInstant(): (value: TInstant) => string {
  const zone = useTimeZone();
  return useCallback(
    (value: TInstant) => {
      const date = toDate(value);
      return date ? formatInZone(date, zone) : String(value);
    },
    [zone],
  );
}

/**
 * An instant as a `<time>` in the page's zone ("1 Dec 2026, 10:27 Asia/Tokyo"), the same in the server's HTML and
 * after hydration. `dateTime` and the tooltip carry the exact UTC instant. Nothing (or `empty`) for null; text that
 * is not a valid instant is shown as it is.
 */
export function LocalTime({
  value,
  empty = "—",
  className,
}: {
  value: TInstant | null | undefined;
  empty?: string;
  className?: string;
}) {
  const format = useFormatInstant();
  if (value === null || value === undefined) return <>{empty}</>;
  const date = toDate(value);
  if (!date) return <span className={className}>{String(value)}</span>;
  return (
    <time dateTime={date.toISOString()} title={date.toISOString()} className={className}>
      {format(date)}
    </time>
  );
}

/**
 * A UTC calendar day ("2026-11-29", as retention sums runs) as a `<time>`: "29 Nov 2026", the day itself (not
 * shifted into a zone). Text that is not such a day is shown as it is.
 */
export function LocalDay({ day, className }: { day: string; className?: string }) {
  const date = parseUtcDay(day);
  if (!date) return <span className={className}>{day}</span>;
  return (
    <time dateTime={day} className={className}>
      {formatUtcDay(date)}
    </time>
  );
}
