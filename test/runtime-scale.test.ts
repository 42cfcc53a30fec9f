// Hundreds of objects through one controller: every one is reconciled, and periodic resyncs of an
// unchanged world issue no write at all (reconciles read the cache, not the API server).
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { applyObject, Manager, onKubeApiRequest, type KubeApiRequestLabels } from '../src/runtime/index.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' } as const;
const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const count = 300;
const writeVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

describe('a controller over many objects', () => {
  let manager: Manager | undefined;
  afterAll(() => manager?.stop());

  it('reconciles each object and writes nothing when resyncing an unchanged world', async () => {
    const namespace = await useNamespace('scale');
    for (let start = 0; start < count; start += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, count - start) }, (_, i) =>
          core.createNamespacedConfigMap({
            namespace,
            body: { metadata: { name: `cm-${start + i}`, labels: { role: 'parent' } }, data: { n: String(start + i) } },
          }),
        ),
      );
    }
    const requests: KubeApiRequestLabels[] = [];
    afterAll(onKubeApiRequest(kc.getCurrentCluster()!.server, (labels) => requests.push(labels)));
    manager = new Manager({
      kubeConfig: kc,
      healthPort: false,
      logger: createLogger({ level: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' }),
    });
    const parents = manager.informer<V1ConfigMap>(configMaps, { namespaces: [namespace], labelSelector: 'role=parent' });
    const mirrors = manager.informer<V1ConfigMap>(configMaps, { namespaces: [namespace], labelSelector: 'role=mirror' });
    let reconciles = 0;
    manager.addController({
      name: 'scale-mirror',
      informer: parents,
      owns: [mirrors],
      concurrency: 8,
      resyncPeriodMs: 300,
      reconcile: async ({ namespace: ns, name }) => {
        reconciles += 1;
        const parent = parents.get(ns, name);
        if (!parent) return;
        const current = mirrors.get(ns, `${name}-mirror`);
        if (current?.data?.n === parent.data?.n) return;
        await applyObject(
          kc,
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: `${name}-mirror`,
              namespace: ns,
              labels: { role: 'mirror' },
              ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid: parent.metadata!.uid!, controller: true }],
            },
            data: { n: parent.data?.n ?? '' },
          },
          'berth-test',
        );
      },
    });
    await manager.start();
    await eventually(async () => mirrors.list(namespace).length === count, 60_000, `${count} mirrors`);
    // At least one apply each; a resync racing an apply's watch event may apply the same mirror again.
    // A mirror's watch event can arrive before the response to the apply that made it is counted.
    const applies = () => requests.filter((r) => r.verb === 'patch' && r.resource === 'configmaps').length;
    await eventually(async () => applies() >= count, 10_000, `${count} applies counted`);

    // Quiet now: once a full resync has passed with no write counted (on a loaded machine a mirror's watch
    // event, or an apply's response, can come late, and a resync before it applies the mirror again),
    // two more resyncs make no write at all.
    const writes = () => requests.filter((r) => writeVerbs.has(r.verb)).length;
    let last = -1;
    let nextMark = 0;
    await eventually(
      async () => {
        if (reconciles < nextMark) return undefined;
        const now = writes();
        const quiet = now === last;
        [last, nextMark] = [now, reconciles + count];
        return quiet || undefined;
      },
      60_000,
      'a full resync with no write',
    );
    const writesBefore = writes();
    const reconcilesBefore = reconciles;
    await eventually(async () => reconciles >= reconcilesBefore + 2 * count, 60_000, 'two more resyncs');
    expect(writes()).toBe(writesBefore);
  });
});
