// Numbers for the tables: percentiles, ratios and the machine's load, kept apart from any I/O.
import { loadavg } from 'node:os';

/** The p-th percentile (0-100) by nearest rank; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function ratio(measured: number, baseline: number): number {
  return baseline > 0 ? measured / baseline : Number.NaN;
}

/**
 * Slope of log(time) against log(size) between consecutive sizes and overall: 1 is linear growth,
 * 2 quadratic. Sizes and times in the same order.
 */
export function growthExponent(sizes: readonly number[], times: readonly number[]): number {
  const first = 0;
  const last = sizes.length - 1;
  if (last <= first) return Number.NaN;
  return Math.log(times[last]! / times[first]!) / Math.log(sizes[last]! / sizes[first]!);
}

/** The 1-minute load average, the figure printed beside every result. */
export function loadAverage(): number {
  return loadavg()[0]!;
}

export function fixed(value: number, digits = 2): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}
