// PromQL instant and range queries to the Prometheus-compatible store the installation reads request metrics from,
// as both halves read it: the HTTP API (a deployment's figures) and the controller (a canary's). Each
// read is bounded in time and follows no redirect.

const readTimeoutMs = 5_000;

interface PromAnswer {
  status: string;
  error?: string;
  data?: { result?: { value?: [number, string] }[] };
}

/** A path below the store's URL, which may carry a path of its own (vmselect's /select/0/prometheus). */
function storeUrl(store: string, path: string): URL {
  return new URL(path, store.endsWith('/') ? store : `${store}/`);
}

/** The first sample of an instant query (each of Berth's queries sums to one series), or undefined. */
export async function instantValue(store: string, promql: string): Promise<number | undefined> {
  const url = storeUrl(store, 'api/v1/query');
  url.searchParams.set('query', promql);
  const response = await fetch(url, { signal: AbortSignal.timeout(readTimeoutMs), redirect: 'error' });
  // An error answer need not be JSON: the status is what the error below reports.
  const answer = (await response.json().catch(() => ({ status: 'error' }))) as PromAnswer;
  if (!response.ok || answer.status !== 'success') throw new Error(`the metrics store answered ${response.status}`);
  const value = Number(answer.data?.result?.[0]?.value?.[1]);
  return Number.isFinite(value) ? value : undefined;
}

/** A time range and the seconds between its points. */
export interface QueryRange {
  start: Date;
  end: Date;
  stepSeconds: number;
}

/** A series over time: [unix seconds, value or null where the store has no sample (or a NaN)]. */
export type Points = [number, number | null][];

/** The first series of a range query (each of Berth's queries sums to one), a point per step, a gap
 * (null) where the store has none. */
export async function rangeValues(store: string, promql: string, range: QueryRange): Promise<Points> {
  const url = storeUrl(store, 'api/v1/query_range');
  // On multiples of the step, where stores that align a range (VictoriaMetrics) put their points too.
  const step = range.stepSeconds;
  const onStep = (date: Date) => Math.floor(date.getTime() / 1000 / step) * step;
  const [first, last] = [onStep(range.start), onStep(range.end)];
  url.searchParams.set('query', promql);
  url.searchParams.set('start', String(first));
  url.searchParams.set('end', String(last));
  url.searchParams.set('step', `${step}s`);
  const response = await fetch(url, { signal: AbortSignal.timeout(readTimeoutMs), redirect: 'error' });
  // An error answer need not be JSON: the status is what the error below reports.
  const answer = (await response.json().catch(() => ({ status: 'error' }))) as PromRangeAnswer;
  if (!response.ok || answer.status !== 'success') throw new Error(`the metrics store answered ${response.status}`);
  const found = new Map((answer.data?.result?.[0]?.values ?? []).map(([at, value]) => [Math.round(at), Number(value)]));
  const points: Points = [];
  for (let at = first; at <= last; at += step) {
    const value = found.get(at);
    points.push([at, value !== undefined && Number.isFinite(value) ? value : null]);
  }
  return points;
}

interface PromRangeAnswer {
  status: string;
  data?: { result?: { values?: [number, string][] }[] };
}

/** The write endpoints Prometheus-compatible stores serve, each with a request that writes nothing: an
 * empty remote-write batch (a snappy frame of zero bytes) and an empty import. */
const writeProbes: { path: string; init: RequestInit }[] = [
  {
    path: 'api/v1/write',
    init: {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' },
      body: new Uint8Array([0]),
    },
  },
  { path: 'api/v1/import', init: { method: 'POST', body: '' } },
];

/**
 * The first write endpoint the store accepts an empty write at, or undefined when it accepts none (or
 * does not answer from here: KEDA may reach it where Berth does not). What KEDA reads there drives
 * every app's scale, so whoever may write it may move any organization's replicas.
 */
export async function writableStorePath(store: string): Promise<string | undefined> {
  for (const probe of writeProbes) {
    const response = await fetch(storeUrl(store, probe.path), {
      ...probe.init,
      signal: AbortSignal.timeout(readTimeoutMs),
      redirect: 'manual',
    }).catch(() => undefined);
    await response?.body?.cancel();
    if (response?.ok) return `/${probe.path} (${response.status})`;
  }
  return undefined;
}
