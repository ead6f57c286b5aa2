/** Order statistics of samples (nearest-rank), the only statistics the benchmark quotes. */

/** The `p`-th percentile (0 < p <= 100) by nearest rank; NaN without samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** The median (50th percentile). */
export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** Round to `digits` decimals (for the table and the JSON line). */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
