// The informer against a real API server: it must see every create, update and delete of ConfigMaps,
// including the ones made while its watch was cut, frozen (half-open) or expired (410 Gone).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { CoreV1Api, KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../workbench/controlplane.ts';
import { createInformer, createLogger, onKubeApiRequest, type Informer, type KubeApiRequestLabels } from '../src/runtime/index.ts';
import { FaultyProxy, kubeConfigVia } from './fixtures/runtime-faulty-proxy.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' } as const;

/** Records what an informer tells its handlers, as `ADD a`, `UPDATE a v2`, `DELETE a`. */
function recordEvents(informer: Informer<V1ConfigMap>): string[] {
  const seen: string[] = [];
  const describe = (object: { metadata?: { name?: string }; data?: Record<string, string> }) =>
    `${object.metadata?.name}${object.data?.v ? ` ${object.data.v}` : ''}`;
  informer.onAdd((object) => seen.push(`ADD ${describe(object)}`));
  informer.onUpdate((object) => seen.push(`UPDATE ${describe(object)}`));
  informer.onDelete((object) => seen.push(`DELETE ${describe(object)}`));
  return seen;
}

function countRequests(server: string): KubeApiRequestLabels[] {
  const requests: KubeApiRequestLabels[] = [];
  const stop = onKubeApiRequest(server, (labels) => requests.push(labels));
  afterAll(stop);
  return requests;
}

const lists = (requests: KubeApiRequestLabels[]) => requests.filter((r) => r.verb === 'list' && r.resource === 'configmaps').length;

describe('Informer', () => {
  const kc = testKubeConfig();
  const core = kc.makeApiClient(CoreV1Api);

  it('caches ConfigMaps and reports every create, update and delete', async () => {
    const namespace = await useNamespace('informer');
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'before', labels: { app: 'x' } } } });
    const informer = createInformer<V1ConfigMap>(kc, configMaps, { namespaces: [namespace], labelIndexes: ['app'] });
    const seen = recordEvents(informer);
    informer.start();
    try {
      await informer.waitForSync();
      expect(informer.hasSynced()).toBe(true);
      expect(informer.get(namespace, 'before')?.kind).toBe('ConfigMap');

      const owner = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'owner' } } });
      await core.createNamespacedConfigMap({
        namespace,
        body: {
          metadata: {
            name: 'a',
            labels: { app: 'y' },
            ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! }],
          },
          data: { v: '1' },
        },
      });
      await core.patchNamespacedConfigMap({ namespace, name: 'a', body: [{ op: 'replace', path: '/data/v', value: '2' }] });
      await eventually(async () => informer.get(namespace, 'a')?.data?.v === '2', 10_000, 'the update in the cache');
      expect(informer.byIndex('app', 'y').map((o) => o.metadata?.name)).toEqual(['a']);
      expect(informer.byIndex('owner', owner.metadata!.uid!).map((o) => o.metadata?.name)).toEqual(['a']);
      expect(
        informer
          .list(namespace)
          .map((o) => o.metadata?.name)
          .sort(),
      ).toEqual(['a', 'before', 'owner']);

      await core.deleteNamespacedConfigMap({ namespace, name: 'a' });
      await eventually(async () => seen.includes('DELETE a 2'), 10_000, 'the delete');
      expect(informer.get(namespace, 'a')).toBeUndefined();
      expect(informer.byIndex('app', 'y')).toEqual([]);
      expect(seen).toEqual(['ADD before', 'ADD owner', 'ADD a 1', 'UPDATE a 2', 'DELETE a 2']);
    } finally {
      await informer.stop();
    }
  });

  it('keeps what its transform makes of listed and watched objects, and never managedFields', async () => {
    const namespace = await useNamespace('informer-view');
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'listed' }, data: { v: '1', big: 'x'.repeat(1000) } } });
    const plain = createInformer<V1ConfigMap>(kc, configMaps, { namespaces: [namespace] });
    const slim = createInformer<V1ConfigMap>(kc, configMaps, {
      namespaces: [namespace],
      transform: (object) => ({ ...object, data: { v: (object as V1ConfigMap).data?.v ?? '' } }) as V1ConfigMap,
    });
    plain.start();
    slim.start();
    try {
      await Promise.all([plain.waitForSync(), slim.waitForSync()]);
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'watched' }, data: { v: '2', big: 'y'.repeat(1000) } } });
      await eventually(
        async () => slim.get(namespace, 'watched') !== undefined && plain.get(namespace, 'watched') !== undefined,
        10_000,
        'the watched object',
      );
      for (const name of ['listed', 'watched']) {
        expect(plain.get(namespace, name)?.metadata?.managedFields).toBeUndefined();
        expect(plain.get(namespace, name)?.data?.big).toHaveLength(1000);
        expect(slim.get(namespace, name)?.data).toEqual({ v: name === 'listed' ? '1' : '2' });
      }
      // The API server does keep them: only the caches drop them.
      expect((await core.readNamespacedConfigMap({ namespace, name: 'listed' })).metadata?.managedFields?.length).toBeGreaterThan(0);
    } finally {
      await Promise.all([plain.stop(), slim.stop()]);
    }
  });

  it('lists page by page, item by item, objects whose text is full of brackets, quotes and multi-byte characters', async () => {
    const namespace = await useNamespace('informer-pages');
    const data = (i: number) => ({
      items: `{"items":[${i}]}`,
      quote: `a \\" } ] ${'{['.repeat(i)}`,
      unicode: `zürich 東京 🚢 ${'é'.repeat(5000 * i)}`,
    });
    for (let i = 0; i < 5; i++)
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `page-${i}` }, data: data(i) } });
    const requests = countRequests(kc.getCurrentCluster()!.server);
    const informer = createInformer<V1ConfigMap>(kc, configMaps, { namespaces: [namespace], pageSize: 2 });
    informer.start();
    try {
      await informer.waitForSync();
      const stored = await core.listNamespacedConfigMap({ namespace });
      const described = (objects: readonly V1ConfigMap[]) =>
        objects.map((o) => [o.metadata?.name, o.metadata?.resourceVersion, o.data]).sort();
      expect(described(informer.list(namespace) as V1ConfigMap[])).toEqual(described(stored.items));
      for (let i = 0; i < 5; i++) expect(informer.get(namespace, `page-${i}`)?.data).toEqual(data(i));
      expect(lists(requests)).toBeGreaterThanOrEqual(3);
    } finally {
      await informer.stop();
    }
  });

  it('keeps one frozen copy of the parts that listed and watched objects have alike, and never shares their metadata', async () => {
    const namespace = await useNamespace('informer-parts');
    const body = (name: string, v: string) => ({ metadata: { name, labels: { app: 'same' } }, data: { v, shared: 'yes' } });
    await core.createNamespacedConfigMap({ namespace, body: body('listed', '1') });
    const informer = createInformer<V1ConfigMap>(kc, configMaps, { namespaces: [namespace] });
    informer.start();
    try {
      await informer.waitForSync();
      await core.createNamespacedConfigMap({ namespace, body: body('watched', '1') });
      await core.createNamespacedConfigMap({ namespace, body: body('other', '2') });
      await eventually(async () => informer.list().length === 3, 10_000, 'the watched objects');
      const cached = (name: string) => informer.get(namespace, name)!;
      const [listed, watched, other] = [cached('listed'), cached('watched'), cached('other')];
      expect(watched.data).toBe(listed.data);
      expect(watched.metadata?.labels).toBe(listed.metadata?.labels);
      expect(other.data).toEqual({ v: '2', shared: 'yes' });
      expect(other.data).not.toBe(listed.data);
      expect(watched.metadata).not.toBe(listed.metadata);
      expect(Object.isFrozen(listed.data)).toBe(true);
      expect(() => {
        (listed.data as Record<string, string>).v = 'changed';
      }).toThrow(TypeError);
      expect(informer.get(namespace, 'watched')?.data?.v).toBe('1');
    } finally {
      await informer.stop();
    }
  });

  it('resumes a watch that is quiet because nothing happens, without a warning, and still sees what comes later', async () => {
    const namespace = await useNamespace('informer-quiet');
    const lines: Array<{ level: number; msg: string }> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = createLogger({ level: 'debug', destination: sink });
    const informer = createInformer<V1ConfigMap>(kc, configMaps, { namespaces: [namespace], inactivityTimeoutMs: 500, logger });
    informer.start();
    try {
      await informer.waitForSync();
      await eventually(
        async () => lines.filter((line) => line.msg === 'watch silent; resuming it').length >= 3,
        15_000,
        'three quiet watches resumed',
      );
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'later' } } });
      await eventually(async () => informer.get(namespace, 'later') !== undefined, 10_000, 'the later create');
      expect(lines.filter((line) => line.level >= 40)).toEqual([]);
    } finally {
      await informer.stop();
    }
  });

  it('watches only the namespaces it is given', async () => {
    const [first, second, other] = await Promise.all([
      useNamespace('informer-one'),
      useNamespace('informer-two'),
      useNamespace('informer-other'),
    ]);
    const informer = createInformer<V1ConfigMap>(kc, configMaps, { namespaces: [first, second] });
    const seen = recordEvents(informer);
    informer.start();
    try {
      await informer.waitForSync();
      await core.createNamespacedConfigMap({ namespace: other, body: { metadata: { name: 'outside' } } });
      await core.createNamespacedConfigMap({ namespace: first, body: { metadata: { name: 'in-first' } } });
      await core.createNamespacedConfigMap({ namespace: second, body: { metadata: { name: 'in-second' } } });
      await eventually(async () => seen.includes('ADD in-first') && seen.includes('ADD in-second'), 10_000, 'both creates');
      expect(seen.filter((line) => !line.includes('kube-root-ca')).sort()).toEqual(['ADD in-first', 'ADD in-second']);
      expect(informer.list(other)).toEqual([]);
      expect(informer.get(first, 'in-first')?.metadata?.namespace).toBe(first);
    } finally {
      await informer.stop();
    }
  });

  it('resumes, without relisting, a watch the server ends at its timeout', async () => {
    const namespace = await useNamespace('informer-timeout');
    const requests = countRequests(kc.getCurrentCluster()!.server);
    const watchesIn = () => requests.filter((r) => r.verb === 'watch' && r.resource === 'configmaps' && r.code === '200').length;
    const informer = createInformer<V1ConfigMap>(kc, configMaps, { namespaces: [namespace], watchTimeoutSeconds: 1 });
    const seen = recordEvents(informer);
    informer.start();
    try {
      await informer.waitForSync();
      const listsAfterSync = lists(requests);
      const watchesAfterSync = watchesIn();
      await eventually(async () => watchesIn() >= watchesAfterSync + 3, 20_000, 'three watches ended by the server and resumed');
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'late' } } });
      await eventually(async () => seen.includes('ADD late'), 10_000, 'the create after several resumed watches');
      expect(lists(requests)).toBe(listsAfterSync);
    } finally {
      await informer.stop();
    }
  });

  describe('through a connection that fails', () => {
    let proxy: FaultyProxy;
    let viaProxy: KubeConfig;
    let requests: KubeApiRequestLabels[];

    beforeAll(async () => {
      proxy = new FaultyProxy(new URL(kc.getCurrentCluster()!.server));
      const server = `https://127.0.0.1:${await proxy.listen()}`;
      viaProxy = kubeConfigVia(kc, server);
      requests = countRequests(server);
    });
    afterAll(() => proxy.close());

    it('resumes from its last resourceVersion after the watch is cut and sees what changed meanwhile', async () => {
      const namespace = await useNamespace('informer-cut');
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'a' }, data: { v: '1' } } });
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'b' }, data: { v: '1' } } });
      const informer = createInformer<V1ConfigMap>(viaProxy, configMaps, {
        namespaces: [namespace],
        backoff: { initialMs: 50, maxMs: 200 },
      });
      const seen = recordEvents(informer);
      const listsBefore = lists(requests);
      informer.start();
      try {
        await informer.waitForSync();
        await eventually(async () => proxy.openConnections > 0, 10_000, 'the watch connection');

        proxy.refuse();
        proxy.cut();
        await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'c' }, data: { v: '1' } } });
        await core.patchNamespacedConfigMap({ namespace, name: 'a', body: [{ op: 'replace', path: '/data/v', value: '2' }] });
        await core.deleteNamespacedConfigMap({ namespace, name: 'b' });
        // Let some reconnects fail before the way is open again.
        await eventually(async () => requests.some((r) => r.verb === 'watch' && r.code === '0'), 10_000, 'a failed reconnect');
        proxy.accept();

        await eventually(async () => seen.length === 5, 15_000, 'the changes made while cut');
        expect(seen).toEqual(['ADD a 1', 'ADD b 1', 'ADD c 1', 'UPDATE a 2', 'DELETE b 1']);
        // Resumed by watch from the last resourceVersion: no second list.
        expect(lists(requests) - listsBefore).toBe(1);
        expect(
          informer
            .list(namespace)
            .map((o) => o.metadata?.name)
            .sort(),
        ).toEqual(['a', 'c']);
      } finally {
        proxy.accept();
        await informer.stop();
      }
    });

    it('gives up on a watch that went silent and reconnects', async () => {
      const namespace = await useNamespace('informer-silent');
      const informer = createInformer<V1ConfigMap>(viaProxy, configMaps, {
        namespaces: [namespace],
        inactivityTimeoutMs: 1_000,
        backoff: { initialMs: 50, maxMs: 200 },
      });
      const seen = recordEvents(informer);
      informer.start();
      try {
        await informer.waitForSync();
        await eventually(async () => proxy.openConnections > 0, 10_000, 'the watch connection');
        proxy.freeze();
        await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'while-frozen' } } });
        await eventually(async () => seen.includes('ADD while-frozen'), 20_000, 'the create made while the watch was frozen');
        expect(seen).toEqual(['ADD while-frozen']);
      } finally {
        await informer.stop();
      }
    });
  });

  describe('against an API server that forgot its history (410 Gone)', () => {
    let dataDir: string;
    let controlPlane: ControlPlane;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'berth-informer-410-'));
      controlPlane = await startControlPlane({ dataDir, ephemeral: true, controllerManager: false });
    });
    afterAll(async () => {
      await controlPlane?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    async function etcd<T>(path: string, body: unknown): Promise<T> {
      const response = await fetch(`${controlPlane.etcdUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`etcd ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    }

    it('relists, replaces its cache and reports deletes for what vanished', async () => {
      const direct = new KubeConfig();
      direct.loadFromFile(controlPlane.kubeconfigPath);
      const api = direct.makeApiClient(CoreV1Api);
      const namespace = 'relist';
      await api.createNamespace({ body: { metadata: { name: namespace } } });
      await api.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'kept' }, data: { v: '1' } } });
      await api.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'vanishes' }, data: { v: '1' } } });

      const proxy = new FaultyProxy(new URL(controlPlane.server));
      const server = `https://127.0.0.1:${await proxy.listen()}`;
      const requests = countRequests(server);
      const informer = createInformer<V1ConfigMap>(kubeConfigVia(direct, server), configMaps, {
        namespaces: [namespace],
        backoff: { initialMs: 50, maxMs: 500 },
      });
      const seen = recordEvents(informer);
      informer.start();
      try {
        await informer.waitForSync();
        expect(lists(requests)).toBe(1);

        proxy.refuse();
        proxy.cut();
        await api.deleteNamespacedConfigMap({ namespace, name: 'vanishes' });
        await api.patchNamespacedConfigMap({ namespace, name: 'kept', body: [{ op: 'replace', path: '/data/v', value: '2' }] });
        await api.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'appears' }, data: { v: '1' } } });
        // Compact etcd's history and restart the API server so its watch cache starts from now:
        // the informer's resourceVersion is then too old to resume from.
        const { header } = await etcd<{ header: { revision: string } }>('/v3/kv/range', { key: Buffer.from('/').toString('base64') });
        await etcd('/v3/kv/compaction', { revision: header.revision, physical: true });
        await controlPlane.restart();
        proxy.accept();

        await eventually(async () => seen.length === 5, 30_000, 'the changes after the relist');
        expect(seen.slice(0, 2)).toEqual(['ADD kept 1', 'ADD vanishes 1']);
        expect(seen.slice(2).sort()).toEqual(['ADD appears 1', 'DELETE vanishes 1', 'UPDATE kept 2']);
        expect(lists(requests)).toBe(2);
        expect(
          informer
            .list(namespace)
            .map((o) => o.metadata?.name)
            .sort(),
        ).toEqual(['appears', 'kept']);
      } finally {
        await informer.stop();
        await proxy.close();
      }
    });
  });
});
