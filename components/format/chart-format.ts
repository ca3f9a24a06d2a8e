import { formatDecimal, formatInteger, formatMoney, type TValueFormat } from "@/contracts/definition/format-value";

/**
 * Formatting for places where space is short — chart axes — and for text written before numbers were
 * formatted for people. Built on the shared field formatting (contracts/definition/format-value.ts), so a
 * chart's axis, its tooltip, the state card and the timeline read alike: money by its currency, integers
 * as integers, decimals with their decimal ("4.0" stays "4.0").
 */

const compactFormats = new Map<string, Intl.NumberFormat>();
function compact(key: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  let format = compactFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat("en-US", { notation: "compact", ...options });
    compactFormats.set(key, format);
  }
  return format;
}

/** An axis tick: like the field's values, but large numbers compact ("$12K", "1.2M") so ticks stay short. */
export function formatAxisValue(value: number, format: TValueFormat | null): string {
  const large = Math.abs(value) >= 10_000;
  if (format?.type === "money" && format.currency) {
    if (!large) return formatMoney(value, format.currency);
    try {
      return compact(`money:${format.currency}`, {
        style: "currency",
        currency: format.currency,
        maximumFractionDigits: 1,
      }).format(value);
    } catch {
      return `${compact("number", { maximumFractionDigits: 1 }).format(value)} ${format.currency}`;
    }
  }
  if (large) return compact("number", { maximumFractionDigits: 1 }).format(value);
  if (format?.type === "integer" || (!format && Number.isInteger(value))) return formatInteger(value);
  return formatDecimal(value);
}

/**
 * Percentages in stored text (a rule's reason such as "−10.20408163% ≥ 5%", written before reasons were
 * rounded) rounded to one decimal: "−10.2% ≥ 5%". Numbers with one or two decimals are left as written.
 */
export function roundPercentsInText(text: string): string {
  return text.replace(/(\d+\.\d{3,})(\s?%)/g, (_, digits: string, percent: string) => {
    const rounded = Number(Number(digits).toFixed(1));
    return `${rounded.toFixed(Number.isInteger(rounded) ? 0 : 1)}${percent}`;
  });
}
