// A hundred Deployments, and a controller restart: the new controller re-reconciles every one of them
// from its caches and finds nothing to write. Writes are counted at the HTTP layer (every request this
// process makes to the API server), so any create, update, patch or delete would show.
import { AppsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../src/api/index.ts';
import { registerDeploymentControllers } from '../src/reconcilers/deployment/index.ts';
import { createLogger, kubeRequest, Manager, onKubeApiRequest, type KubeApiRequestLabels } from '../src/runtime/index.ts';
import { eventually, testKubeConfig, useNamespace } from './support/cluster.ts';

const kc = testKubeConfig();
const custom = kc.makeApiClient(CustomObjectsApi);
const apps = kc.makeApiClient(AppsV1Api);
const group = 'berth.dev';
const version = 'v1alpha1';
const count = 100;
const writeVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

let namespace: string;
let manager: Manager | undefined;

function startManager(): Promise<Manager> {
  const m = new Manager({ kubeConfig: testKubeConfig(), healthPort: false, logger: createLogger({ level: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' }), processMetrics: false });
  registerDeploymentControllers(m, { namespaces: [namespace] });
  return m.start().then(() => m);
}

async function reconciles(m: Manager, controller: string): Promise<number> {
  const metric = await m.metrics.reconcileTotal.get();
  return metric.values.filter((v) => v.labels.controller === controller).reduce((sum, v) => sum + v.value, 0);
}

async function listDeployments(): Promise<Deployment[]> {
  return ((await custom.listNamespacedCustomObject({ group, version, namespace, plural: 'deployments' })) as { items: Deployment[] }).items;
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

beforeAll(async () => {
  namespace = await useNamespace('deploy-scale');
  manager = await startManager();
});

afterAll(async () => {
  await manager?.stop();
});

describe(`${count} Deployments`, () => {
  const names = Array.from({ length: count }, (_, i) => `app-${String(i).padStart(3, '0')}`);

  it('all become READY with one Revision each', async () => {
    await inBatches(names, 20, (name) =>
      custom.createNamespacedCustomObject({
        group,
        version,
        namespace,
        plural: 'deployments',
        body: {
          apiVersion: `${group}/${version}`,
          kind: 'Deployment',
          metadata: { name },
          spec: { source: 'external_docker', sourceConfig: { resourceSpec: { minScale: 1, maxScale: 2 } }, sourceRevisionConfig: { imageUri: `nginx:1.${name.slice(-2)}` } },
        },
      }),
    );
    await eventually(async () => (await apps.listNamespacedDeployment({ namespace })).items.length === count || undefined, 120_000, 'every application Deployment');
    const workloads = (await apps.listNamespacedDeployment({ namespace })).items;
    await inBatches(workloads, 20, (d) =>
      kubeRequest(kc, {
        method: 'PATCH',
        path: `/apis/apps/v1/namespaces/${namespace}/deployments/${d.metadata!.name}/status`,
        contentType: 'application/merge-patch+json',
        body: { status: { observedGeneration: d.metadata!.generation, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 } },
      }),
    );
    await eventually(
      async () => (await listDeployments()).filter((d) => d.status?.status === 'READY' && d.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length === count || undefined,
      120_000,
      'every Deployment READY',
    );
    const revisions = (await custom.listNamespacedCustomObject({ group, version, namespace, plural: 'revisions' })) as { items: unknown[] };
    expect(revisions.items).toHaveLength(count);
  });

  it('re-reconciles all of them after a controller restart without a single write', async () => {
    await manager!.stop();
    manager = undefined;
    const writes: KubeApiRequestLabels[] = [];
    const stopCounting = onKubeApiRequest(kc.getCurrentCluster()!.server, (request) => {
      if (writeVerbs.has(request.verb)) writes.push(request);
    });
    try {
      const started = Date.now();
      manager = await startManager();
      const m = manager;
      await eventually(async () => (await reconciles(m, 'deployment')) >= count && (await reconciles(m, 'tracing-project')) >= count, 120_000, 'every key reconciled');
      console.error(`[deployment-scale] ${count} Deployments and their TracingProjects re-reconciled ${Date.now() - started} ms after the restart`);
      expect(writes).toEqual([]);
      const stillReady = await listDeployments();
      expect(stillReady.filter((d) => d.status?.status === 'READY')).toHaveLength(count);
    } finally {
      stopCounting();
    }
  });

  it('issues no write when the same spec is applied again', async () => {
    const m = manager!;
    const before = await reconciles(m, 'deployment');
    const writes: KubeApiRequestLabels[] = [];
    // A metadata-only change wakes the controller (an update event) without changing the spec.
    const target = names[7]!;
    const current = (await listDeployments()).find((d) => d.metadata.name === target)!;
    const stopCounting = onKubeApiRequest(kc.getCurrentCluster()!.server, (request) => {
      if (writeVerbs.has(request.verb)) writes.push(request);
    });
    try {
      await kubeRequest(kc, {
        method: 'PATCH',
        path: `/apis/${group}/${version}/namespaces/${namespace}/deployments/${target}`,
        contentType: 'application/apply-patch+yaml',
        query: { fieldManager: 'gitops', force: 'true' },
        body: { apiVersion: `${group}/${version}`, kind: 'Deployment', metadata: { name: target, annotations: { 'example.com/synced': 'again' } }, spec: current.spec },
      });
      await eventually(async () => (await reconciles(m, 'deployment')) > before, 30_000, 'the re-applied Deployment reconciled');
      // The only write is the re-apply itself.
      expect(writes).toEqual([{ verb: 'patch', resource: 'deployments.berth.dev', code: '200' }]);
    } finally {
      stopCounting();
    }
    const revisions = (await custom.listNamespacedCustomObject({ group, version, namespace, plural: 'revisions', labelSelector: `berth.dev/deployment=${target}` })) as { items: unknown[] };
    expect(revisions.items).toHaveLength(1);
  });
});
