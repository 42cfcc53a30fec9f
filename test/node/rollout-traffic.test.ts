// What a client of an app sees while Berth changes it: a steady stream of requests to the app's URL
// through the node's Gateway, counted per phase — an image change, a scale-down, a bad image, a
// rollback (a pin to the first revision), Berth itself restarting — against the steady state. Every phase must see 0 failed requests;
// the p99 latency of each is printed beside the steady state's.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureApiKey, ensureOrganizationNamespace } from '../../src/facade/api-keys.ts';
import { registryAddress } from '../../workbench/node/network.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from '../support/cluster.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { httpApi, revisionReaches, type Api } from '../support/http-api.ts';
import { steadyClient, windowStats, type WindowStats } from '../../workbench/support/steady-client.ts';
import { componentPods, exampleImage, gatewayFlags, httpGet } from './support.ts';

let berth: BerthProcess;
let berthArgs: string[];
let api: Api;
let namespace: string;

beforeAll(async () => {
  const kc = testKubeConfig();
  const operatorNamespace = await useNamespace('berth-rollout-op');
  namespace = await useNamespace('rollout');
  const org = randomUUID();
  await ensureOrganizationNamespace(kc, namespace, org);
  berthArgs = [...runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace] }), ...gatewayFlags()];
  berth = spawnBerth(inject('kubeconfigPath'), berthArgs);
  await waitReady(berth);
  api = httpApi(`http://127.0.0.1:${await berth.facadePort()}`, { 'x-api-key': (await ensureApiKey(kc, operatorNamespace, [org])).key });
});

afterAll(async () => {
  await berth?.stop();
});

/** The app's pods, terminating ones included: a phase ends once only the wanted revision's remain. */
async function appPods(): Promise<{ revision: string; terminating: boolean }[]> {
  const pods = await componentPods<{ metadata: { labels: Record<string, string>; deletionTimestamp?: string } }>(namespace, 'web');
  return pods.map((pod) => ({
    revision: pod.metadata.labels['berth.dev/revision'] ?? '',
    terminating: !!pod.metadata.deletionTimestamp,
  }));
}

async function onlyPodsOf(revisionName: string, count: number) {
  await eventually(
    async () => {
      const pods = await appPods();
      return pods.length === count && pods.every((pod) => pod.revision === revisionName && !pod.terminating);
    },
    120_000,
    `only ${count} pod(s) of ${revisionName}, none terminating`,
  );
}

describe('a steady client of an app through the Gateway while Berth changes it', () => {
  it('sees 0 failed requests in every phase', { timeout: 600_000 }, async () => {
    const [v1, v2] = [await exampleImage('rollout-v1'), await exampleImage('rollout-v2')];
    const created = await api.ok('POST', '/v2/deployments', {
      name: 'web',
      source: 'external_docker',
      source_config: {
        resource_spec: { min_scale: 2, max_scale: 2, cpu: 0.1, memory_mb: 64 },
        health_check: { path: '/ok', period_seconds: 1 },
      },
      source_revision_config: { image_uri: v1 },
    });
    const id: string = created.id;
    const first: string = created.latest_revision_id;
    const revisionName = async (revisionId: string): Promise<string> =>
      (await api.ok('GET', `/v2/deployments/${id}/revisions/${revisionId}`)).name;
    await revisionReaches(api, id, first, ['DEPLOYED'], { timeoutMs: 120_000 });
    const url = (await api.ok('GET', `/v2/deployments/${id}`)).url as string;
    await eventually(async () => (await httpGet(`${url}/`).catch(() => undefined))?.status === 200, 30_000, `${url} answering`);
    await onlyPodsOf(await revisionName(first), 2);

    // Two loops, one request each 20 ms: at most 100 requests a second, to loopback.
    const client = steadyClient(`${url}/`, {
      concurrency: 2,
      intervalMs: 20,
      accept: (status, body) => status === 200 && body.startsWith('berth-example rollout-'),
    });
    const phases: [string, WindowStats][] = [];
    const phase = async (name: string, action: () => Promise<void>) => {
      const from = Date.now();
      await action();
      // The tail: requests sent as the last old pod went.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      phases.push([name, windowStats(client.samples, from, Date.now())]);
      console.error(`[rollout] ${name}: ${Math.round((Date.now() - from) / 1000)} s, ${JSON.stringify(phases.at(-1)![1])}`);
    };
    try {
      await phase('steady state', () => new Promise((resolve) => setTimeout(resolve, 5000)));
      await phase('image change', async () => {
        const second = (await api.ok('PATCH', `/v2/deployments/${id}`, { source_revision_config: { image_uri: v2 } })).latest_revision_id;
        await revisionReaches(api, id, second, ['DEPLOYED'], { timeoutMs: 120_000 });
        await onlyPodsOf(await revisionName(second), 2);
      });
      await phase('scale down 2 -> 1', async () => {
        await api.ok('PATCH', `/v2/deployments/${id}`, { source_config: { resource_spec: { min_scale: 1, max_scale: 1 } } });
        const active = (await api.ok('GET', `/v2/deployments/${id}`)).active_revision_id;
        await onlyPodsOf(await revisionName(active), 1);
      });
      await phase('bad image', async () => {
        const bad = `${registryAddress}/berth-example:no-such-tag`;
        const failing = (await api.ok('PATCH', `/v2/deployments/${id}`, { source_revision_config: { image_uri: bad } })).latest_revision_id;
        await revisionReaches(api, id, failing, ['DEPLOY_FAILED'], { timeoutMs: 120_000 });
      });
      await phase('rollback', async () => {
        await api.ok('POST', `/v2/deployments/${id}/revisions/${first}/redeploy`);
        await eventually(async () => (await api.ok('GET', `/v2/deployments/${id}`)).active_revision_id === first, 120_000, 'rolled back');
        await onlyPodsOf(await revisionName(first), 1);
      });
      await phase('Berth restarts', async () => {
        await berth.stop();
        berth = spawnBerth(inject('kubeconfigPath'), berthArgs);
        await waitReady(berth);
        await new Promise((resolve) => setTimeout(resolve, 3000));
      });
    } finally {
      await client.stop();
    }

    const steady = phases[0]![1];
    console.error(
      [
        'phase                 requests  failed  p50 ms  p99 ms  p99 vs steady',
        ...phases.map(
          ([name, stats]) =>
            `${name.padEnd(20)}  ${String(stats.requests).padStart(8)}  ${String(stats.failed).padStart(6)}  ${String(stats.p50).padStart(6)}  ${String(stats.p99).padStart(6)}  ${(stats.p99 / Math.max(steady.p99, 1)).toFixed(2).padStart(13)}${stats.failures.length ? `  (${stats.failures.join(', ')})` : ''}`,
        ),
      ].join('\n'),
    );
    for (const [name, stats] of phases) {
      expect(stats.requests, name).toBeGreaterThan(50);
      expect({ phase: name, failed: stats.failed, failures: stats.failures }).toEqual({ phase: name, failed: 0, failures: [] });
    }
  });
});
