/** Small display helpers shared by the trackers list and the tracker page. */

export function formatWhen(value: Date | string | null | undefined): string {
  if (!value) return "—";
  const date = typeof value === "string" ? new Date(value) : value;
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

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

export { SCHEDULE_OPTIONS as SCHEDULE_CHOICES } from "@/server/trackers/commands/schedule-options";
