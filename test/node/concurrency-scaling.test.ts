// Apps scale on their requests in flight on the real node: Berth, given the node's Prometheus-compatible
// server (--concurrency-metrics), renders each app's autoscaler as a KEDA ScaledObject; KEDA's operator
// and metrics adapter (built here) read the Gateway's metrics through it and drive the app's
// HorizontalPodAutoscaler. A bounded client holds 30 slow but CPU-cheap requests in flight through the
// Gateway (loopback only): a CPU autoscaler would not act, this one goes to max_scale (10 in flight per
// replica) and never past it, then back to min_scale once the load stops, with 0 failed requests.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { metricsStoreUrl, writableStoreUrl } from '../../workbench/node/metrics-store.ts';
import { rangeMetrics } from '../../src/facade/wire-schemas.ts';
import { writableStorePath } from '../../src/workloads/metrics-store.ts';
import { renderAlertRules, renderDashboard } from '../../src/api/metrics-views.ts';
import { routeServiceNames } from '../../src/api/child-names.ts';
import { kubeRequest } from '../../src/runtime/index.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { kubectl, testKubeConfig, useNamespace } from '../support/cluster.ts';
import { runArgs, spawnBerth, type BerthProcess } from '../support/berth-process.ts';
import type { Api } from '../support/http-api.ts';
import { autoscalerOf, berthScalingOf, readyReplicasOf, watchMostReplicas } from '../../workbench/support/scaling.ts';
import { deployScaledApp, scaleBackIn } from './scaling-steps.ts';
import { steadyClient, windowStats } from '../../workbench/support/steady-client.ts';
import { berthWithMetrics, namespaceAdmin } from './support.ts';

const kc = testKubeConfig();
let berth: BerthProcess;
let api: Api;
let namespace: string;

beforeAll(async () => {
  ({ berth, api, namespace } = await berthWithMetrics('inflight'));
});

afterAll(async () => {
  await berth?.stop();
});

interface ScaledObject {
  metadata: { ownerReferences?: { kind: string; name: string; uid: string }[] };
  spec: { minReplicaCount: number; maxReplicaCount: number; triggers: { type: string; metadata: Record<string, string> }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

const scaledObject = (name: string) =>
  kubeRequest<ScaledObject>(kc, { method: 'GET', path: `/apis/keda.sh/v1alpha1/namespaces/${namespace}/scaledobjects/${name}` });

/** The requests in flight the autoscaler last read, per replica (its external metric), as a number. */
const inFlightPerReplica = async (name: string) => {
  const reading = (await autoscalerOf(kc, namespace, name)).status?.currentMetrics?.find((metric) => metric.type === 'External');
  const value = reading?.external?.current?.averageValue;
  if (value === undefined) return undefined;
  return value.endsWith('m') ? Number(value.slice(0, -1)) / 1000 : Number(value);
};

/** The deployment's figures in the HTTP API under the load: its three pods, their usage, its requests. */
async function expectFiguresUnderLoad(): Promise<void> {
  const id = (await api.ok('GET', '/v2/deployments?name_contains=calm')).resources[0].id as string;
  interface Figures {
    application: { replicas: number; ready_replicas: number; cpu_cores: number | null; memory_bytes: number | null };
    api: { requests_per_second: number; success_ratio: number | null; latency_p50_seconds: number | null } | null;
    unavailable: unknown[];
  }
  // metrics-server reads the new pods within a scrape or two, and the store the Gateway every 5 s.
  const figures = await eventually(
    async () => {
      const read: Figures = await api.ok('GET', `/v2/deployments/${id}/metrics`);
      return read.unavailable.length === 0 && (read.api?.requests_per_second ?? 0) > 5 && read.application.cpu_cores !== null
        ? read
        : undefined;
    },
    90_000,
    "the deployment's figures under load",
  );
  console.error(`[concurrency-scaling] figures under load: ${JSON.stringify(figures)}`);
  expect(figures.application).toMatchObject({ replicas: 3, ready_replicas: 3 });
  expect(figures.application.memory_bytes).toBeGreaterThan(0);
  // Every request is answered 200, and each waits 1 s in the app: the Gateway's median is in its 0.3-1.2 s bucket.
  expect(figures.api?.success_ratio).toBe(1);
  expect(figures.api?.latency_p50_seconds).toBeGreaterThan(0.3);
  await expectViewsUnderLoad(routeServiceNames(id).stable);
  await expectRangeUnderLoad(id);
}

/** The same figures over the last ten minutes, a point each 15 s: the load shows, its pods' CPU and
 * memory from the kubelet's cAdvisor with it, and the revision made in that time is marked. */
async function expectRangeUnderLoad(id: string): Promise<void> {
  type Series = { metric: string; points: [number, number | null][] }[];
  // CPU is a rate: it shows once cAdvisor (scraped every 15 s) has two samples of the new pods.
  const range = await eventually(
    async () => {
      const end = new Date();
      const query = new URLSearchParams({ start: new Date(end.getTime() - 600_000).toISOString(), end: end.toISOString(), step: '15' });
      const read = await api.ok('GET', `/v2/deployments/${id}/metrics?${query}`);
      const cpu = (read.series as Series).find((s) => s.metric === 'cpu_cores');
      return cpu?.points.some(([, value]) => (value ?? 0) > 0) ? read : undefined;
    },
    90_000,
    "the pods' CPU over the range",
  );
  const series = new Map((range.series as Series).map((s) => [s.metric, s.points]));
  // Every figure but an agent server's runs (this app has no queue worker).
  expect([...series.keys()]).toEqual(rangeMetrics.filter((metric) => !metric.endsWith('_runs')));
  const most = (metric: string) => Math.max(...series.get(metric)!.map(([, value]) => value ?? 0));
  expect(series.get('requests_per_second')!.length).toBeGreaterThanOrEqual(40);
  expect(most('requests_per_second')).toBeGreaterThan(5);
  // Three pods of the example app under load: some CPU, and a few megabytes each.
  expect(most('cpu_cores')).toBeGreaterThan(0);
  expect(most('memory_bytes')).toBeGreaterThan(1_000_000);
  expect((range.revisions as { name: string }[]).length).toBeGreaterThanOrEqual(1);
  expect(range.unavailable).toEqual([]);
}

/** The chart's dashboard and alerts, asked of the node's store: every query is one it runs, and the
 * dashboard's request panels show the load. */
async function expectViewsUnderLoad(routeService: string): Promise<void> {
  const ask = async (query: string) => {
    const answer = await fetch(`${metricsStoreUrl}/api/v1/query?${new URLSearchParams({ query })}`);
    const body = (await answer.json()) as { status: string; data?: { result: { value: [number, string] }[] } };
    expect(body.status, query).toBe('success');
    return body.data?.result.map((series) => Number(series.value[1])) ?? [];
  };
  const panels = (renderDashboard() as { panels: { title: string; targets: { expr: string }[] }[] }).panels;
  for (const panel of panels)
    for (const target of panel.targets) {
      const filled = target.expr.replaceAll('$namespace', namespace).replaceAll('$deployment', 'calm');
      // The dashboard finds the route Service by the deployment's label (kube-state-metrics, not on the node).
      const values = await ask(filled.replaceAll('$backend', routeService));
      if (panel.title === 'Requests' && !target.expr.includes('5..')) expect(values[0], panel.title).toBeGreaterThan(5);
    }
  const rules = (renderAlertRules() as { groups: { rules: { alert: string; expr: string }[] }[] }).groups.flatMap((group) => group.rules);
  for (const rule of rules) await ask(rule.expr);
}

describe('an app with slow requests on the real node, scaled on its requests in flight', () => {
  let url: string;

  it('gets a KEDA ScaledObject that reads its traffic at the Gateway and CPU, and a ready autoscaler', { timeout: 240_000 }, async () => {
    url = await deployScaledApp(api, 'calm');
    const object = await scaledObject('calm');
    expect(object.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'calm' });
    expect(object.spec).toMatchObject({ minReplicaCount: 1, maxReplicaCount: 3 });
    expect(object.spec.triggers.map((trigger) => trigger.type)).toEqual(['cpu', 'prometheus']);
    expect(object.spec.triggers[1]!.metadata).toMatchObject({ serverAddress: metricsStoreUrl, threshold: '10' });
    // Its route Service's traffic (named from the uid: no other organization's names fold into it).
    const routed = routeServiceNames(object.metadata.ownerReferences![0]!.uid).stable;
    expect(object.spec.triggers[1]!.metadata.query).toContain(`service="${namespace}-${routed}-http-80@kubernetesgateway"`);
    // KEDA made the autoscaler under the app's name; its external metric reads (0 in flight while idle).
    await eventually(
      async () => (await scaledObject('calm')).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      60_000,
      'the ScaledObject Ready',
    );
    await eventually(async () => (await inFlightPerReplica('calm')) !== undefined, 120_000, 'the autoscaler reading requests in flight');
  });

  it('reads the store through a front that passes queries only: an import or a delete there is a 400', async () => {
    const forged = { metric: { __name__: 'berth_forged', namespace }, values: [1000], timestamps: [Date.now()] };
    const imported = await fetch(`${metricsStoreUrl}/api/v1/import`, { method: 'POST', body: JSON.stringify(forged) });
    expect(imported.status).toBe(400);
    expect(await imported.text()).toContain('missing route');
    // A matcher of the forged series alone: on a writable store this deletes nothing else.
    const deleted = await fetch(
      `${metricsStoreUrl}/api/v1/admin/tsdb/delete_series?${new URLSearchParams({ 'match[]': 'berth_forged' })}`,
      {
        method: 'POST',
      },
    );
    expect(deleted.status).toBe(400);
    const read = await fetch(`${metricsStoreUrl}/api/v1/query?${new URLSearchParams({ query: 'berth_forged' })}`);
    expect(await read.json()).toMatchObject({ status: 'success', data: { result: [] } });
  });

  it('refuses to start a Berth given the store itself, which takes writes, naming where', async () => {
    expect(await writableStorePath(writableStoreUrl)).toBe('/api/v1/write (204)');
    expect(await writableStorePath(metricsStoreUrl)).toBeUndefined();
    const refused = spawnBerth(inject('kubeconfigPath'), [
      ...runArgs({ operatorNamespace: await useNamespace('berth-writable-op'), watchNamespaces: [namespace] }),
      '--concurrency-metrics',
      writableStoreUrl,
    ]);
    expect(await refused.exited).toBe(1);
    expect(JSON.stringify(refused.lines)).toContain('--concurrency-metrics takes writes at /api/v1/write (204)');
  });

  it('lets a team that administers its namespace write no ScaledObject, so no query or URL of its own reaches KEDA', async () => {
    // It administers its namespace (Kubernetes' admin role), but KEDA's kinds are not in that role.
    const tenant = await namespaceAdmin(namespace);
    for (const kind of ['scaledobjects.keda.sh', 'triggerauthentications.keda.sh', 'scaledjobs.keda.sh'])
      expect((await kubectl(['auth', 'can-i', 'create', kind, '-n', namespace, tenant])).stdout.trim(), kind).toBe('no');
    const attempt = await kubectl(
      ['apply', '-n', namespace, '-f', '-', tenant],
      JSON.stringify({
        apiVersion: 'keda.sh/v1alpha1',
        kind: 'ScaledObject',
        metadata: { name: 'probe' },
        spec: {
          scaleTargetRef: { name: 'calm' },
          triggers: [
            { type: 'metrics-api', metadata: { url: 'http://169.254.169.254/latest/meta-data/', valueLocation: 'x', targetValue: '1' } },
          ],
        },
      }),
    );
    expect(attempt.code).not.toBe(0);
    expect(attempt.stderr).toMatch(/forbidden/i);
    // Nor may it edit Berth's: the ScaledObject's query stays the one Berth wrote.
    const patch = await kubectl([
      'patch',
      'scaledobject',
      'calm',
      '-n',
      namespace,
      '--type=merge',
      '-p',
      '{"spec":{"maxReplicaCount":50}}',
      tenant,
    ]);
    expect(patch.stderr).toMatch(/forbidden/i);
    expect((await scaledObject('calm')).spec.maxReplicaCount).toBe(3);
  });

  it(
    'scales out to max_scale on 30 requests in flight and back in once they stop, never past the cap, with 0 failed requests',
    { timeout: 600_000 },
    async () => {
      // 30 loops, each a 1 s request then a 50 ms pause: about 28 requests in flight and 28 a second, to loopback.
      const client = steadyClient(`${url}/wait?ms=1000`, { concurrency: 30, intervalMs: 50, accept: (status) => status === 200 });
      const replicas = watchMostReplicas(kc, namespace, 'calm');
      let most: number;
      try {
        const outFrom = Date.now();
        await eventually(async () => (await readyReplicasOf(kc, namespace, 'calm')) === 3, 300_000, '3 ready replicas under load');
        const out = windowStats(client.samples, outFrom, Date.now());
        // What moved it: the requests in flight the autoscaler read (30 over one replica, then 10 over 3).
        const perReplica = await eventually(
          async () => {
            const value = await inFlightPerReplica('calm');
            return value !== undefined && value > 5 ? value : undefined;
          },
          60_000,
          'requests in flight read per replica',
        );
        await eventually(async () => (await berthScalingOf(kc, namespace, 'calm'))?.replicas === 3, 60_000, 'status.scaling at 3');
        await expectFiguresUnderLoad();
        console.error(
          `[concurrency-scaling] scale out 1 -> 3: ${Math.round((Date.now() - outFrom) / 1000)} s, the autoscaler read ${perReplica} in flight per replica, ${JSON.stringify(out)}`,
        );
        await client.stop();
        const inFrom = Date.now();
        const back = await scaleBackIn(kc, namespace, 'calm', url);
        console.error(`[concurrency-scaling] scale in 3 -> 1: ${Math.round((Date.now() - inFrom) / 1000)} s, ${JSON.stringify(back)}`);
        expect({ out: out.failures, in: back.failures }).toEqual({ out: [], in: [] });
        expect(out.failed + back.failed).toBe(0);
      } finally {
        most = await replicas.stop();
        await client.stop();
      }
      expect(most).toBe(3);
    },
  );
});
