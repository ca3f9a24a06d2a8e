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
