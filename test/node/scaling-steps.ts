// The steps both autoscaling tests take: the app they scale (min 1, max 3, at its URL through the Gateway)
// and its scale-in under a light client.
import type { KubeConfig } from '@kubernetes/client-node';
import { eventually } from '../../workbench/support/poll.ts';
import { revisionReaches, type Api } from '../support/http-api.ts';
import { autoscalerOf, readyReplicasOf } from '../../workbench/support/scaling.ts';
import { steadyClient, windowStats, type WindowStats } from '../../workbench/support/steady-client.ts';
import { exampleImage, httpGet } from './support.ts';

/** Creates the example app as `name` (min 1, max 3, a tenth of a core) and answers its URL once it serves there. */
export async function deployScaledApp(api: Api, name: string): Promise<string> {
  const created = await api.ok('POST', '/v2/deployments', {
    name,
    source: 'external_docker',
    source_config: {
      resource_spec: { min_scale: 1, max_scale: 3, cpu: 0.1, memory_mb: 64 },
      health_check: { path: '/ok', period_seconds: 1 },
    },
    source_revision_config: { image_uri: await exampleImage('scale-v1') },
  });
  await revisionReaches(api, created.id, created.latest_revision_id, ['DEPLOYED'], { timeoutMs: 120_000 });
  const url = (await api.ok('GET', `/v2/deployments/${created.id}`)).url as string;
  await eventually(async () => (await httpGet(`${url}/ok`).catch(() => undefined))?.status === 200, 30_000, `${url} answering`);
  return url;
}

/**
 * Waits, once the load has stopped, until the autoscaler and the ready pods are back at 1, while a lighter
 * client keeps asking (what it sees is what a user would); answers what that client saw.
 */
export async function scaleBackIn(kc: KubeConfig, namespace: string, name: string, url: string): Promise<WindowStats> {
  const from = Date.now();
  const quiet = steadyClient(`${url}/ok`, { concurrency: 1, intervalMs: 200, accept: (status) => status === 200 });
  try {
    await eventually(
      async () =>
        (await autoscalerOf(kc, namespace, name)).status?.currentReplicas === 1 && (await readyReplicasOf(kc, namespace, name)) === 1,
      300_000,
      'back to 1 replica',
    );
    await new Promise((resolve) => setTimeout(resolve, 2000));
  } finally {
    await quiet.stop();
  }
  return windowStats(quiet.samples, from, Date.now());
}
