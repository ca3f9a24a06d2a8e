"use client";

import { createContext, useContext } from "react";
import { type TInstant, toDate } from "@/components/format/date-time";

/**
 * Times in the feed are shown in the person's time zone (docs/feed.md, "Time zone"): the one in Settings, else the
 * browser's (the page reads it from a cookie), else UTC. The page passes the zone in, so the server's HTML and the
 * hydrated page write the same text and nothing is rewritten after hydration. The text is built by hand from the
 * zone's wall time (English month names, 24-hour clock), not from the reader's locale, for the same reason.
 */
export const FeedTimeZoneContext = createContext<string>("UTC");

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
      });
    } catch {
      f = formatterFor("UTC"); // a zone this browser does not know reads as UTC (and says so)
    }
    formatters.set(zone, f);
  }
  return f;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** "12 Dec 2026, 23:30 Asia/Tokyo": an instant in `zone`, the same text on every server and browser. */
export function formatInZone(date: Date, zone: string): string {
  const f = formatterFor(zone);
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(date)) if (p.type !== "literal") parts[p.type] = Number(p.value);
  const shown = f.resolvedOptions().timeZone === "UTC" && zone !== "UTC" ? "UTC" : zone;
  return `${parts.day} ${MONTHS[(parts.month ?? 1) - 1]} ${parts.year}, ${pad((parts.hour ?? 0) % 24)}:${pad(parts.minute ?? 0)} ${shown}`;
}

/** An instant as a `<time>` in the feed's zone; the exact UTC instant in `dateTime`. */
export function FeedTime({ value, className }: { value: TInstant; className?: string }) {
  const zone = useContext(FeedTimeZoneContext);
  const date = toDate(value);
  if (!date) return <span className={className}>{String(value)}</span>;
  return (
    <time dateTime={date.toISOString()} className={className}>
      {formatInZone(date, zone)}
    </time>
  );
}

/** The same, for a title attribute (a relative time's exact instant on hover). */
export function useFormatInFeedZone(): (value: Date) => string {
  const zone = useContext(FeedTimeZoneContext);
  return (value) => formatInZone(value, zone);
}
