/** The vector scaled to length 1, so cosine similarity in SQL is a plain dot product; a zero vector stays zero. */
export function unitVector(vector: readonly number[]): number[] {
  const norm = Math.hypot(...vector);
  return norm > 0 && Number.isFinite(norm) ? vector.map((v) => v / norm) : vector.map(() => 0);
}

/**
 * A `double precision[]` literal (`{0.1,-0.2}`), passed as one text parameter and cast in SQL: the same on the pg
 * driver and on PGlite, whose adapters pass JS arrays differently.
 */
export function toVectorLiteral(vector: readonly number[]): string {
  return `{${vector.map((v) => (Number.isFinite(v) ? String(v) : "0")).join(",")}}`;
}
