// Reads the Prometheus text Berth serves on /metrics: the series the benchmark and the suites count (API
// requests by verb and resource, reconciles, work-queue depth). Parsing is pure; fetching is the caller's.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

export const writeVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** The sums of the series `name`, by the key `keyOf` makes of each sample's labels, of the samples `keep` accepts. */
export function sumsBy(
  samples: readonly Sample[],
  name: string,
  keyOf: (labels: Record<string, string>) => string,
  keep: (labels: Record<string, string>) => boolean = () => true,
): Map<string, number> {
  const sums = new Map<string, number>();
  for (const s of samples) {
    if (s.name !== name || !keep(s.labels)) continue;
    const key = keyOf(s.labels);
    sums.set(key, (sums.get(key) ?? 0) + s.value);
  }
  return sums;
}

/** Berth's API requests by `verb resource`, those `keep` accepts (all by default). */
export function apiRequests(samples: readonly Sample[], keep?: (labels: Record<string, string>) => boolean): Map<string, number> {
  return sumsBy(samples, 'berth_kube_api_requests_total', (labels) => `${labels.verb} ${labels.resource}`, keep);
}

/** API writes by `verb resource`, leaving out the Lease of leader election (not a write about any object). */
export function apiWrites(samples: readonly Sample[]): Map<string, number> {
  return apiRequests(samples, (labels) => writeVerbs.has(labels.verb ?? '') && !labels.resource?.startsWith('leases.'));
}

export function total(values: Iterable<number>): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum;
}

export function sumOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return total(samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).map((s) => s.value));
}

/** Subtracts an earlier reading of counters from a later one. */
export function difference(later: ReadonlyMap<string, number>, earlier: ReadonlyMap<string, number>): Map<string, number> {
  const result = new Map<string, number>();
  for (const [key, value] of later) {
    const delta = value - (earlier.get(key) ?? 0);
    if (delta !== 0) result.set(key, delta);
  }
  return result;
}
