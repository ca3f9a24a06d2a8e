/** "A, B, C and 2 more": the first `max` parts named, the rest counted (a card line stays short). */
export function nameList(parts: readonly string[], max = 3): string {
  const shown = parts.slice(0, max).join(", ");
  const rest = parts.length - max;
  return rest > 0 ? `${shown} and ${rest} more` : shown;
}

/** "1 item", "3 items". */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/** A value as a line shows it: whitespace collapsed, cut at `max` characters, "—" for none. */
export function shownValue(value: string | null, max = 40): string {
  const text = value === null ? "" : value.replace(/\s+/g, " ").trim();
  if (text === "") return "—";
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}
