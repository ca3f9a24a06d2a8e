/**
 * Small display helpers shared by the trackers list and the tracker page. Everything here is
 * locale-independent, so server and browser render the same text; instants go through
 * `<LocalTime>` (components/format).
 */

export function formatSchedule(minutes: number): string {
  if (minutes % 1440 === 0) return minutes === 1440 ? "daily" : `every ${minutes / 1440} days`;
  if (minutes % 60 === 0) return minutes === 60 ? "hourly" : `every ${minutes / 60} hours`;
  return `every ${minutes} min`;
}

export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.length ? value.join(", ") : "—";
  if (typeof value === "object" && value && "amount" in value && "currency" in value) {
    const money = value as { amount: number; currency: string };
    return `${money.amount} ${money.currency}`;
  }
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

export { SCHEDULE_OPTIONS as SCHEDULE_CHOICES } from "@/contracts/schedule";

/**
 * How long before `asOf` an instant was, for people: "just now", "5 min ago", "3 h ago", "2 d ago". `asOf` comes with
 * the data (the server's read time), so the server's HTML and the browser's hydration say the same.
 */
export function formatAgo(value: Date, asOf: Date): string {
  const minutes = Math.floor((asOf.getTime() - value.getTime()) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} d ago`;
}

/** Days from `asOf` until an instant, rounded up: "in 14 days", "in 1 day"; past → "within a day". */
export function formatDaysUntil(value: Date, asOf: Date): string {
  const days = Math.ceil((value.getTime() - asOf.getTime()) / 86_400_000);
  if (days <= 0) return "within a day";
  return days === 1 ? "in 1 day" : `in ${days} days`;
}

/** A byte count for people, in decimal units like file sizes elsewhere: "900 B", "4.2 KB", "212 KB", "1.3 MB". */
export function formatBytes(bytes: number): string {
  const units = ["KB", "MB", "GB", "TB"];
  if (bytes < 1000) return `${Math.max(0, Math.round(bytes))} B`;
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 999.5 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value < 9.95 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** The tracker page's stored-history line (docs/replay.md): how much it keeps for replaying definition edits. */
export function describeStoredHistory(history: { captures: number; bytes: number }): string {
  if (history.captures === 0) return "No stored history yet";
  const noun = history.captures === 1 ? "capture" : "captures";
  return `Stored history: ${history.captures} ${noun} · ${formatBytes(history.bytes)} (for replaying definition edits)`;
}
