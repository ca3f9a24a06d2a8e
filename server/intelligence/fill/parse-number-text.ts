/**
 * Reads exactly one number out of display text: "4.3" → 4.3, "$1,299.00" → 1299, "1.299,00 €" → 1299,
 * "312 reviews" → 312, "−2" → -2. Text with no number, or with several ("4.3 out of 5"), is refused
 * rather than guessed. Separators: when both , and . appear the last one is the decimal point; a lone
 * separator followed by exactly three digits in a group pattern (1,299 / 1.299.000) is a thousands separator.
 */
export function parseNumberText(text: string): number | null {
  const tokens = text.match(NUMBER_TOKEN) ?? [];
  if (tokens.length !== 1) return null;
  return parseToken(tokens[0] as string);
}

const NUMBER_TOKEN = /[-−+]?(?:\d{1,3}(?:[ \u00a0\u202f'’]\d{3})+(?:[.,]\d+)?|\d(?:[\d.,]*\d)?)/g;

function parseToken(token: string): number | null {
  const negative = token.startsWith("-") || token.startsWith("−");
  const body = token.replace(/^[-−+]/, "").replace(/[ \u00a0\u202f'’]/g, "");
  const lastDot = body.lastIndexOf(".");
  const lastComma = body.lastIndexOf(",");
  let normalised: string;
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? "." : ",";
    const thousands = decimal === "." ? "," : ".";
    normalised = body.split(thousands).join("").replace(decimal, ".");
  } else if (lastComma >= 0) {
    normalised = isThousandsGrouped(body, ",") ? body.replace(/,/g, "") : body.replace(",", ".");
  } else if (lastDot >= 0) {
    // "1.299" stays 1.299 (English decimal); only two or more groups (1.299.000) read as thousands.
    normalised = (body.match(/\./g)?.length ?? 0) > 1 && isThousandsGrouped(body, ".") ? body.replace(/\./g, "") : body;
  } else {
    normalised = body;
  }
  if (!/^\d+(\.\d+)?$/.test(normalised)) return null;
  const value = Number(normalised);
  if (!Number.isFinite(value)) return null;
  return negative ? -value : value;
}

function isThousandsGrouped(body: string, separator: string): boolean {
  const groups = body.split(separator);
  return /^\d{1,3}$/.test(groups[0] ?? "") && groups.slice(1).every((g) => /^\d{3}$/.test(g));
}
