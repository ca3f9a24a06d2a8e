import type { TDeltas } from "../diff";

function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.length ? value.join(", ") : "—";
  if (typeof value === "object" && "amount" in value && "currency" in value) {
    const money = value as { amount: number; currency: string };
    return `${money.amount} ${money.currency}`;
  }
  const text = String(value);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

/** "rating 4.4→4.3, review_count 312→470" — the short line a run summary and the UI show. */
export function describeDeltas(deltas: TDeltas, limit = 3): string {
  const names = Object.keys(deltas);
  const parts = names.slice(0, limit).map((name) => {
    const d = deltas[name];
    if (!d) return name;
    if (name === "notable_signals") return `new signal: ${formatValue(d.to)}`;
    return `${name} ${formatValue(d.from)}→${formatValue(d.to)}`;
  });
  if (names.length > limit) parts.push(`+${names.length - limit} more`);
  return parts.join(", ");
}
