import { formatFieldValue } from "@/contracts/definition/format-value";
import type { TDeltas } from "../diff";

/** Money by its currency ("$39.50"), numbers grouped, lists joined — as the rest of the UI shows values. */
function formatValue(value: unknown): string {
  const text = formatFieldValue(value);
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
