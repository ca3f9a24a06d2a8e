/** Human formatting shared by rule descriptions and verdict reasons; hides float noise (0.1+0.2). */
export function formatNumber(value: number): string {
  return String(Number(value.toPrecision(12)));
}

/** Signed with a real minus sign: "+158", "−0.1". */
export function formatSigned(value: number): string {
  const rounded = Number(value.toPrecision(12));
  if (rounded > 0) return `+${formatNumber(rounded)}`;
  if (rounded < 0) return `−${formatNumber(-rounded)}`;
  return "0";
}

/** 0.05 → "5%", 0.125 → "12.5%": a threshold as the person set it (exact). */
export function formatPercent(fraction: number): string {
  return `${formatNumber(Number((fraction * 100).toPrecision(10)))}%`;
}

/**
 * A measured ratio for people: one decimal (0.1020408 → "10.2%"), more only where one decimal would read as the
 * threshold it was compared with (0.04999 against 0.05 → "4.999%", never "5% < 5%").
 */
export function formatMeasuredPercent(fraction: number, threshold?: number): string {
  const percent = fraction * 100;
  const exact = threshold === undefined ? undefined : Number((threshold * 100).toPrecision(10));
  for (let decimals = 1; decimals <= 6; decimals++) {
    const shown = Number(percent.toFixed(decimals));
    if (exact === undefined || shown !== exact || Number(percent.toPrecision(10)) === exact) {
      return `${formatNumber(shown)}%`;
    }
  }
  return `${formatNumber(Number(percent.toPrecision(10)))}%`;
}
