// 2. Spec-change latency: one Deployment among many gets a new sourceRevisionConfig; timed from the
// patch until the benchmark's own watch sees the new Revision. Baseline: the same watch's latency for
// a plain ConfigMap update on the same API server, which no controller stands between. A second
// reference, the relay, is the floor of any controller on this path: a plain watch that answers each
// ConfigMap update by creating another ConfigMap (write, watch, write, watch, as Berth's path is).
import type { KubeConfig, V1ConfigMap } from '@kubernetes/client-node';
import { createInformer, kubeRequest } from '../../src/runtime/index.ts';
import type { BenchContext } from '../context.ts';
import { watchConvergence } from '../convergence-watch.ts';
import { configMapResource, deploymentNames } from '../fixtures.ts';
import { loadAverage, percentile, ratio } from '../stats.ts';

export interface LatencyResult {
  size: number;
  patches: number;
  berthP50Ms: number;
  berthP99Ms: number;
  configMapP50Ms: number;
  configMapP99Ms: number;
  p50Ratio: number;
  p99Ratio: number;
  relayP50Ms: number;
  relayP99Ms: number;
  /** Berth's p99 over the relay's. */
  relayP99Ratio: number;
  load: number;
}

/** Times ConfigMap updates until the watch delivers each one. */
async function configMapProbe(kc: KubeConfig, namespace: string): Promise<{ once(round: number): Promise<number>; stop(): Promise<void> }> {
  const name = 'latency-probe';
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  await kubeRequest(kc, { method: 'POST', path, body: { metadata: { name }, data: { round: '0' } } });
  const informer = createInformer<V1ConfigMap>(kc, configMapResource, { namespaces: [namespace] });
  const waiting = new Map<string, (at: number) => void>();
  informer.onUpdate((cm) => {
    const round = cm.data?.round ?? '';
    waiting.get(round)?.(performance.now());
    waiting.delete(round);
  });
  informer.start();
  await informer.waitForSync();
  return {
    async once(round) {
      const seen = new Promise<number>((resolve) => waiting.set(String(round), resolve));
      const sent = performance.now();
      await kubeRequest(kc, {
        method: 'PATCH',
        path: `${path}/${name}`,
        contentType: 'application/merge-patch+json',
        body: { data: { round: String(round) } },
      });
      return (await withTimeout(seen, 30_000, `the watch event of ConfigMap round ${round}`)) - sent;
    },
    stop: () => informer.stop(),
  };
}

/**
 * The relay: an informer that creates `relay-out-<round>` for each update of `relay-in`, and the time
 * from that update until a second watch sees the created ConfigMap.
 */
async function relayProbe(kc: KubeConfig, namespace: string): Promise<{ once(round: number): Promise<number>; stop(): Promise<void> }> {
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  await kubeRequest(kc, { method: 'POST', path, body: { metadata: { name: 'relay-in' }, data: { round: '0' } } });
  const relay = createInformer<V1ConfigMap>(kc, configMapResource, { namespaces: [namespace], labelSelector: 'relay=in' });
  await kubeRequest(kc, {
    method: 'PATCH',
    path: `${path}/relay-in`,
    contentType: 'application/merge-patch+json',
    body: { metadata: { labels: { relay: 'in' } } },
  });
  relay.onUpdate((cm) => {
    const round = cm.data?.round;
    if (round && round !== '0')
      void kubeRequest(kc, { method: 'POST', path, body: { metadata: { name: `relay-out-${round}`, labels: { relay: 'out' } } } });
  });
  const observer = createInformer<V1ConfigMap>(kc, configMapResource, { namespaces: [namespace], labelSelector: 'relay=out' });
  const waiting = new Map<string, (at: number) => void>();
  observer.onAdd((cm) => {
    const name = cm.metadata?.name ?? '';
    waiting.get(name)?.(performance.now());
    waiting.delete(name);
  });
  for (const informer of [relay, observer]) informer.start();
  await Promise.all([relay.waitForSync(), observer.waitForSync()]);
  return {
    async once(round) {
      const seen = new Promise<number>((resolve) => waiting.set(`relay-out-${round}`, resolve));
      const sent = performance.now();
      await kubeRequest(kc, {
        method: 'PATCH',
        path: `${path}/relay-in`,
        contentType: 'application/merge-patch+json',
        body: { data: { round: String(round) } },
      });
      return (await withTimeout(seen, 30_000, `relay round ${round}`)) - sent;
    },
    stop: () => Promise.all([relay.stop(), observer.stop()]).then(() => undefined),
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)),
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Rounds alternate between the ConfigMap and a Deployment, so that both series see the same load.
 * Deployments are picked spread over the namespace, so most patches hit one with one Revision so far.
 */
async function measureRounds(
  context: BenchContext,
  namespace: string,
  size: number,
  count: number,
): Promise<{ berth: number[]; configMap: number[]; relay: number[] }> {
  const kc = context.cluster.kubeConfig;
  const probe = await configMapProbe(kc, await context.cluster.namespace('latency-probe'));
  const relayed = await relayProbe(kc, await context.cluster.namespace('latency-relay'));
  const watch = await watchConvergence(kc, namespace);
  const names = deploymentNames(size);
  const berth: number[] = [];
  const configMap: number[] = [];
  const relay: number[] = [];
  try {
    for (let round = 1; round <= count; round++) {
      configMap.push(await probe.once(round));
      relay.push(await relayed.once(round));
      const name = names[(round * 7919) % names.length]!;
      const known = new Set(watch.revisions.byIndex('berth.dev/deployment', name).map((r) => r.metadata.name ?? ''));
      const sent = performance.now();
      await kubeRequest(kc, {
        method: 'PATCH',
        path: `/apis/berth.dev/v1alpha1/namespaces/${namespace}/deployments/${name}`,
        contentType: 'application/merge-patch+json',
        body: { spec: { sourceRevisionConfig: { imageUri: `nginx:latency-${round}` } } },
      });
      berth.push((await watch.nextRevision(name, known, 60_000)) - sent);
    }
  } finally {
    await Promise.all([watch.stop(), probe.stop(), relayed.stop()]);
  }
  return { berth, configMap, relay };
}

export async function latency(context: BenchContext, namespace: string, size: number): Promise<LatencyResult> {
  const count = context.options.patches;
  context.log(`latency: ${count} Deployment patches among ${size}, each after a ConfigMap update`);
  const { berth, configMap, relay } = await measureRounds(context, namespace, size, count);
  const result = {
    size,
    patches: count,
    berthP50Ms: percentile(berth, 50),
    berthP99Ms: percentile(berth, 99),
    configMapP50Ms: percentile(configMap, 50),
    configMapP99Ms: percentile(configMap, 99),
    p50Ratio: 0,
    p99Ratio: 0,
    relayP50Ms: percentile(relay, 50),
    relayP99Ms: percentile(relay, 99),
    relayP99Ratio: 0,
    load: loadAverage(),
  };
  result.relayP99Ratio = ratio(result.berthP99Ms, result.relayP99Ms);
  result.p50Ratio = ratio(result.berthP50Ms, result.configMapP50Ms);
  result.p99Ratio = ratio(result.berthP99Ms, result.configMapP99Ms);
  return result;
}
