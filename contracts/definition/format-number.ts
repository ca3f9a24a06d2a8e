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

/** 0.05 → "5%", 0.125 → "12.5%". */
export function formatPercent(fraction: number): string {
  return `${formatNumber(Number((fraction * 100).toPrecision(10)))}%`;
}
