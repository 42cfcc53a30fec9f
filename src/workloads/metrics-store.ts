// PromQL instant queries to the Prometheus-compatible store the installation reads request metrics from,
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
  const answer = (await response.json().catch(() => ({ status: 'error' }))) as PromAnswer;
  if (!response.ok || answer.status !== 'success') throw new Error(`the metrics store answered ${response.status}`);
  const value = Number(answer.data?.result?.[0]?.value?.[1]);
  return Number.isFinite(value) ? value : undefined;
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
