// PromQL instant queries to the Prometheus-compatible store the installation reads request metrics from,
// as both halves read it: the HTTP API (a deployment's figures) and the controller (a canary's). Each
// read is bounded in time and follows no redirect.

const readTimeoutMs = 5_000;

interface PromAnswer {
  status: string;
  error?: string;
  data?: { result?: { value?: [number, string] }[] };
}

/** The first sample of an instant query (each of Berth's queries sums to one series), or undefined. */
export async function instantValue(store: string, promql: string): Promise<number | undefined> {
  const url = new URL('api/v1/query', store.endsWith('/') ? store : `${store}/`);
  url.searchParams.set('query', promql);
  const response = await fetch(url, { signal: AbortSignal.timeout(readTimeoutMs), redirect: 'error' });
  const answer = (await response.json().catch(() => ({ status: 'error' }))) as PromAnswer;
  if (!response.ok || answer.status !== 'success') throw new Error(`the metrics store answered ${response.status}`);
  const value = Number(answer.data?.result?.[0]?.value?.[1]);
  return Number.isFinite(value) ? value : undefined;
}
