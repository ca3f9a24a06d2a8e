"use client";

import { useCallback, useSyncExternalStore } from "react";
import { formatLocal, formatLocalDay, formatUtc, formatUtcDay, parseUtcDay, type TInstant, toDate } from "./date-time";

const subscribe = () => () => {};

/**
 * False on the server and during hydration, true afterwards (and at once for components mounted later).
 * React renders the server snapshot while hydrating and re-renders with the client one right after, so
 * text that depends on the reader's zone or locale never differs from the server's HTML — no hydration
 * mismatch, no suppressHydrationWarning.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}

/** A formatter for places that need a string (an SVG title, an aria-label): UTC until hydrated, then local. */
export function useFormatInstant(): (value: TInstant) => string {
  const hydrated = useHydrated();
  return useCallback(
    (value: TInstant) => {
      const date = toDate(value);
      if (!date) return String(value);
      return hydrated ? formatLocal(date) : formatUtc(date);
    },
    [hydrated],
  );
}

/**
 * An instant as a `<time>`: "1 Dec 2026, 01:27 UTC" in the server's HTML and the first client render,
 * then in the reader's locale and time zone. `dateTime` and the tooltip carry the exact UTC instant.
 * Nothing (or `empty`) for null; text that is not a valid instant is shown as it is.
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
 * A UTC calendar day ("2026-11-29") as a `<time>` in the page's date format: "29 Nov 2026" in the server's HTML,
 * then the reader's medium date. Text that is not such a day is shown as it is.
 */
export function LocalDay({ day, className }: { day: string; className?: string }) {
  const hydrated = useHydrated();
  const date = parseUtcDay(day);
  if (!date) return <span className={className}>{day}</span>;
  return (
    <time dateTime={day} className={className}>
      {hydrated ? formatLocalDay(date) : formatUtcDay(date)}
    </time>
  );
}
