// A hundred Deployments, and a controller restart: the new controller re-reconciles every one of them
// from its caches and finds nothing to write. Writes are counted at the HTTP layer (every request this
// process makes to the API server), so any create, update, patch or delete would show.
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../src/api/index.ts';
import { registerDeploymentControllers } from '../src/reconcilers/deployment/index.ts';
import { registerTracingProjectController } from '../src/reconcilers/tracing-project/index.ts';
import { createLogger, kubeRequest, Manager, onKubeApiRequest, type KubeApiRequestLabels } from '../src/runtime/index.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';
import { managedSecretLabels } from '../workbench/support/shared-secrets.ts';

const kc = testKubeConfig();
const custom = kc.makeApiClient(CustomObjectsApi);
const apps = kc.makeApiClient(AppsV1Api);
const core = kc.makeApiClient(CoreV1Api);
const group = 'berth.dev';
const version = 'v1alpha1';
const count = 100;
/** A Deployment that uses every feature, so every renderer's output meets the API server's defaulting. */
const full = 'everything';
/** Generous bounds: a hundred objects on a shared, busy machine. They bound waiting, they assert nothing. */
const heavy = 240_000;
const writeVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

let namespace: string;
let manager: Manager | undefined;

function startManager(): Promise<Manager> {
  const m = new Manager({
    kubeConfig: testKubeConfig(),
    healthPort: false,
    logger: createLogger({ level: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' }),
    processMetrics: false,
  });
  registerDeploymentControllers(m, { namespaces: [namespace] });
  registerTracingProjectController(m, { namespaces: [namespace] });
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

  it(
    'all get their workloads',
    async () => {
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
            spec: {
              source: 'external_docker',
              sourceConfig: { resourceSpec: { minScale: 1, maxScale: 2 } },
              sourceRevisionConfig: { imageUri: `nginx:1.${name.slice(-2)}` },
            },
          },
        }),
      );
      await eventually(
        async () => (await apps.listNamespacedDeployment({ namespace })).items.length === count || undefined,
        heavy,
        'every application Deployment',
      );
    },
    heavy + 10_000,
  );

  it('one more uses every feature (database, cache, queue, Ingress, pod settings, secrets) and settles too', async () => {
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: `${full}-secrets`, labels: managedSecretLabels }, stringData: { API_KEY: 'k' } },
    });
    await custom.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: 'deployments',
      body: {
        apiVersion: `${group}/${version}`,
        kind: 'Deployment',
        metadata: { name: full },
        spec: {
          source: 'external_docker',
          sourceConfig: {
            customUrl: 'https://everything.example.com/api',
            resourceSpec: {
              minScale: 2,
              maxScale: 4,
              cpu: 1.5,
              cpuLimit: 2,
              memoryMb: 1024,
              memoryLimitMb: 2048,
              queueMinScale: 1,
              queueMaxScale: 3,
              queueCpu: 0.25,
              queueMemoryMb: 300,
              redisMemoryMb: 128,
              dbCpu: 1,
              dbMemoryMb: 1536,
              dbStorageGi: 1024,
              dbMaxConnections: 50,
              labels: { team: 'payments' },
              annotations: { 'prometheus.io/scrape': 'true' },
              serviceAccountName: 'runner',
              imagePullSecrets: [{ name: 'regcred' }],
              volumes: [
                { name: 'cache', emptyDir: {} },
                { name: 'config', configMap: { name: 'app-config' } },
              ],
              volumeMounts: [{ name: 'config', mountPath: '/etc/app', readOnly: true }],
              initContainers: [{ name: 'migrate', image: 'app:migrate', args: ['--up'] }],
              // Quantities as a person writes them; the API server stores them canonicalised.
              sidecars: [
                {
                  name: 'proxy',
                  image: 'envoy:1',
                  resources: { limits: { cpu: '1000m', memory: '1024Mi' } },
                  volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
                },
              ],
            },
          },
          sourceRevisionConfig: { imageUri: 'app:full' },
          secrets: [{ name: 'API_KEY' }],
        },
      },
    });
    await eventually(() => apps.readNamespacedDeployment({ namespace, name: `${full}-queue` }), 30_000, 'the queue worker');
    await eventually(
      () => kubeRequest(kc, { method: 'GET', path: `/apis/networking.k8s.io/v1/namespaces/${namespace}/ingresses/${full}` }),
      30_000,
      'the Ingress',
    );
    await eventually(() => apps.readNamespacedStatefulSet({ namespace, name: `${full}-postgres` }), 30_000, 'the database');
    await eventually(() => apps.readNamespacedDeployment({ namespace, name: `${full}-redis` }), 30_000, 'the cache');
  });

  it(
    'all become READY with one Revision each',
    async () => {
      const workloads = (await apps.listNamespacedDeployment({ namespace })).items;
      await kubeRequest(kc, {
        method: 'PATCH',
        path: `/apis/apps/v1/namespaces/${namespace}/statefulsets/${full}-postgres/status`,
        contentType: 'application/merge-patch+json',
        body: { status: { observedGeneration: 1, replicas: 1, readyReplicas: 1, currentReplicas: 1, availableReplicas: 1 } },
      });
      await inBatches(workloads, 20, (d) =>
        kubeRequest(kc, {
          method: 'PATCH',
          path: `/apis/apps/v1/namespaces/${namespace}/deployments/${d.metadata!.name}/status`,
          contentType: 'application/merge-patch+json',
          body: {
            status: { observedGeneration: d.metadata!.generation, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
          },
        }),
      );
      await eventually(
        async () =>
          (await listDeployments()).filter(
            (d) => d.status?.status === 'READY' && d.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
          ).length ===
            count + 1 || undefined,
        heavy,
        'every Deployment READY',
      );
      const revisions = (await custom.listNamespacedCustomObject({ group, version, namespace, plural: 'revisions' })) as {
        items: unknown[];
      };
      expect(revisions.items).toHaveLength(count + 1);
    },
    heavy + 10_000,
  );

  it(
    're-reconciles all of them after a controller restart without a single write',
    async () => {
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
        await eventually(
          async () => (await reconciles(m, 'deployment')) >= count + 1 && (await reconciles(m, 'tracing-project')) >= count + 1,
          heavy,
          'every key reconciled',
        );
        console.error(
          `[deployment-scale] ${count + 1} Deployments and their TracingProjects re-reconciled ${Date.now() - started} ms after the restart`,
        );
        expect(writes).toEqual([]);
        const stillReady = await listDeployments();
        expect(stillReady.filter((d) => d.status?.status === 'READY')).toHaveLength(count + 1);
      } finally {
        stopCounting();
      }
    },
    heavy + 10_000,
  );

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
        body: {
          apiVersion: `${group}/${version}`,
          kind: 'Deployment',
          metadata: { name: target, annotations: { 'example.com/synced': 'again' } },
          spec: current.spec,
        },
      });
      await eventually(async () => (await reconciles(m, 'deployment')) > before, 30_000, 'the re-applied Deployment reconciled');
      // The only write is the re-apply itself.
      expect(writes).toEqual([{ verb: 'patch', resource: 'deployments.berth.dev', code: '200' }]);
    } finally {
      stopCounting();
    }
    const revisions = (await custom.listNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: 'revisions',
      labelSelector: `berth.dev/deployment=${target}`,
    })) as { items: unknown[] };
    expect(revisions.items).toHaveLength(1);
  });
});
