/** Small, dependency-free statistics for benchmark reports. Inputs are never mutated. */

export function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

export function mean(values: readonly number[]): number {
  return values.length ? sum(values) / values.length : Number.NaN;
}

/** Linear-interpolated percentile, p in [0, 100]. NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (rank - lo);
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export function min(values: readonly number[]): number {
  return values.length ? Math.min(...values) : Number.NaN;
}

export function max(values: readonly number[]): number {
  return values.length ? Math.max(...values) : Number.NaN;
}

export type TSummary = { n: number; mean: number; p50: number; p95: number; min: number; max: number };

export function summarise(values: readonly number[]): TSummary {
  return {
    n: values.length,
    mean: mean(values),
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    min: min(values),
    max: max(values),
  };
}

/** Deterministic PRNG (mulberry32) so every run changes the same pages by the same amounts. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
