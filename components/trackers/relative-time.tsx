"use client";

import { useFormatInstant } from "@/components/format/local-time";
import { formatAgo } from "./format";

/**
 * "3 h ago", counted from `asOf` (the instant the data was read, sent with it), so the server's HTML and the
 * hydrated page say the same; the tooltip has the exact time in the reader's zone once hydrated. A span, not a
 * `<time>`: `<time>` elements in this app show the absolute local time (tests/e2e/time-zones.spec.ts).
 */
export function RelativeTime({ value, asOf, className }: { value: Date; asOf: Date; className?: string }) {
  const format = useFormatInstant();
  return (
    <span title={format(value)} className={className} data-instant={value.toISOString()}>
      {formatAgo(value, asOf)}
    </span>
  );
}
