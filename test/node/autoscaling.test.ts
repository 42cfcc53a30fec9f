// Apps scale with their load on the real node: metrics-server serves the pods' CPU (metrics.k8s.io) and
// the HorizontalPodAutoscaler Berth renders from min_scale/max_scale acts on it. A bounded client sends
// CPU-costly requests to the app's URL through the node's Gateway (loopback only); replicas rise to
// max_scale and never past it, then fall back to min_scale once the load stops, and the client sees 0
// failed requests throughout.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { kubeRequest } from '../../src/runtime/index.ts';
import { autoscalerOf, berthScalingOf, readyReplicasOf, watchMostReplicas } from '../../workbench/support/scaling.ts';
import { deployScaledApp, scaleBackIn } from './scaling-steps.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from '../support/cluster.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { httpApi, type Api } from '../support/http-api.ts';
import { steadyClient, windowStats } from '../../workbench/support/steady-client.ts';
import { gatewayFlags, kubectlOk } from './support.ts';

const kc = testKubeConfig();
let berth: BerthProcess;
let api: Api;
let namespace: string;

beforeAll(async () => {
  const operatorNamespace = await useNamespace('berth-scale-op');
  namespace = await useNamespace('scale');
  const org = randomUUID();
  await ensureOrganizationNamespace(kc, namespace, org);
  berth = spawnBerth(inject('kubeconfigPath'), [
    ...runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }),
    ...gatewayFlags(),
  ]);
  await waitReady(berth);
  api = httpApi(`http://127.0.0.1:${await berth.facadePort()}`, { 'x-api-key': (await ensureApiKey(kc, operatorNamespace, [org])).key });
});

afterAll(async () => {
  await berth?.stop();
});

const autoscaler = (name: string) => autoscalerOf(kc, namespace, name);
const berthScaling = () => berthScalingOf(kc, namespace, 'busy');
const readyReplicas = (name: string) => readyReplicasOf(kc, namespace, name);

describe('an app under load on the real node', () => {
  let url: string;

  it("has its pods' CPU and memory in metrics.k8s.io (metrics-server through the aggregation layer)", { timeout: 240_000 }, async () => {
    url = await deployScaledApp(api, 'busy');
    const metrics = await eventually(
      async () => {
        const list = await kubeRequest<{
          items: { metadata: { name: string }; containers: { usage: { cpu: string; memory: string } }[] }[];
        }>(kc, {
          method: 'GET',
          path: `/apis/metrics.k8s.io/v1beta1/namespaces/${namespace}/pods`,
        }).catch(() => undefined);
        return list && list.items.length > 0 ? list.items : undefined;
      },
      120_000,
      "the app pod's metrics",
    );
    expect(metrics[0]!.metadata.name).toMatch(/^busy-/);
    expect(metrics[0]!.containers[0]!.usage.memory).toMatch(/^\d+[KMG]i$/);
    // The autoscaler reads them too: its current CPU shows up in its status.
    await eventually(
      async () => ((await autoscaler('busy')).status?.currentMetrics?.length ?? 0) > 0,
      120_000,
      'the autoscaler reading CPU',
    );
  });

  it(
    'scales out to max_scale under load and back in once it stops, never past the cap, with 0 failed requests',
    { timeout: 600_000 },
    async () => {
      // Three loops, a 5 ms CPU request each 40 ms: at most 75 requests and under 0.4 of a core a second, to
      // loopback. That is more than three pods at their target (3 x 70% of 0.1 core), so the autoscaler asks
      // for a fourth and is held at max_scale; with two loops, three pods sat at the target, and a low reading
      // on a busy node asked for two while the test read status.scaling.
      const client = steadyClient(`${url}/work?ms=5`, { concurrency: 3, intervalMs: 40, accept: (status) => status === 200 });
      const replicas = watchMostReplicas(kc, namespace, 'busy');
      try {
        const outFrom = Date.now();
        await eventually(async () => (await readyReplicas('busy')) === 3, 300_000, '3 ready replicas under load');
        const out = windowStats(client.samples, outFrom, Date.now());
        // The Deployment says so, in its status and in kubectl get.
        const scaled = await eventually(
          async () => {
            const scaling = await berthScaling();
            return scaling?.replicas === 3 && scaling.desiredReplicas === 3 ? scaling : undefined;
          },
          60_000,
          'status.scaling at 3, 3 desired',
        );
        expect(scaled).toMatchObject({ replicas: 3, desiredReplicas: 3 });
        expect(scaled?.lastScaleTime).toMatch(/^\d{4}-\d\d-\d\dT/);
        expect(await kubectlOk(['get', 'bdeploy', 'busy', '-n', namespace, '-o', 'wide'])).toMatch(/\s3\s+3\s/);
        console.error(`[autoscaling] scale out 1 -> 3: ${Math.round((Date.now() - outFrom) / 1000)} s, ${JSON.stringify(out)}`);
        await client.stop();
        const inFrom = Date.now();
        const back = await scaleBackIn(kc, namespace, 'busy', url);
        await eventually(async () => (await berthScaling())?.replicas === 1, 60_000, 'status.scaling back at 1');
        console.error(`[autoscaling] scale in 3 -> 1: ${Math.round((Date.now() - inFrom) / 1000)} s, ${JSON.stringify(back)}`);
        expect({ out: out.failures, in: back.failures }).toEqual({ out: [], in: [] });
        expect(out.failed + back.failed).toBe(0);
        expect(await replicas.stop()).toBe(3);
      } finally {
        await replicas.stop();
        await client.stop();
      }
    },
  );
});
