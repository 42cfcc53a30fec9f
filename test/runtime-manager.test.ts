// A Manager running a small ConfigMap "mirror" controller against the real API server: each parent
// ConfigMap gets a mirror ConfigMap it owns. The tests look only at what is observable: objects in
// the API server, Events, and the HTTP answers of /healthz, /readyz and /metrics.
import { CoreV1Api, type CoreV1Event, type V1ConfigMap, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyObject,
  createEventRecorder,
  Manager,
  deleteObject,
  onKubeApiRequest,
  type DeepReadonly,
  type Informer,
} from '../src/runtime/index.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' } as const;
const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);

function renderMirror(parent: DeepReadonly<V1ConfigMap>): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `${parent.metadata!.name}-mirror`,
      namespace: parent.metadata!.namespace,
      labels: { role: 'mirror' },
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: parent.metadata!.name!, uid: parent.metadata!.uid!, controller: true },
      ],
    },
    data: { ...parent.data },
  };
}

async function metric(port: number, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) total += Number(line.split(' ').pop());
  }
  return total;
}

/** Watches the Events matching `fieldSelector` from now on and keeps each write (ADDED or MODIFIED) it reports. */
async function watchEventWrites(namespace: string, fieldSelector: string): Promise<{ seen: CoreV1Event[]; stop: () => void }> {
  const { metadata } = await core.listNamespacedEvent({ namespace, fieldSelector });
  const seen: CoreV1Event[] = [];
  const request = await new Watch(kc).watch(
    `/api/v1/namespaces/${namespace}/events`,
    { fieldSelector, resourceVersion: metadata!.resourceVersion },
    (phase: string, event: CoreV1Event) => {
      if (phase === 'ADDED' || phase === 'MODIFIED') seen.push(event);
    },
    () => {},
  );
  return { seen, stop: () => request.abort() };
}

describe('Manager with a controller', () => {
  let namespace: string;
  let manager: Manager;
  let parents: Informer<V1ConfigMap>;
  const reconciled: string[] = [];

  beforeAll(async () => {
    namespace = await useNamespace('manager');
    manager = new Manager({
      kubeConfig: kc,
      healthPort: 0,
      healthHost: '127.0.0.1',
      eventAggregateWindowMs: 300,
      logger: createLogger({ level: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' }),
    });
    parents = manager.informer<V1ConfigMap>(configMaps, { namespaces: [namespace], labelSelector: 'role=parent' });
    const mirrors = manager.informer<V1ConfigMap>(configMaps, { namespaces: [namespace], labelSelector: 'role=mirror' });
    manager.addController({
      name: 'mirror',
      informer: parents,
      owns: [mirrors],
      concurrency: 2,
      backoff: { initialMs: 5, maxMs: 50 },
      reconcile: async ({ namespace: ns, name }, { recorder }) => {
        reconciled.push(name);
        const parent = parents.get(ns, name);
        if (!parent) {
          await deleteObject(kc, configMaps, { namespace: ns, name: `${name}-mirror` });
          return;
        }
        if (parent.data?.fail === 'true') throw new Error('asked to fail');
        const wanted = renderMirror(parent);
        const current = mirrors.get(ns, wanted.metadata!.name!);
        if (JSON.stringify(current?.data ?? {}) !== JSON.stringify(wanted.data)) {
          await applyObject(kc, wanted, 'berth-test');
          recorder.event(parent, 'Normal', 'Mirrored', `mirrored into ${wanted.metadata!.name}`);
        }
      },
    });
    await manager.start();
  });
  afterAll(() => manager?.stop());

  const port = () => manager.healthPort!;
  const mirrorData = (name: string) =>
    core.readNamespacedConfigMap({ namespace, name: `${name}-mirror` }).then(
      (cm) => cm.data ?? {},
      () => undefined,
    );

  it('is healthy, and ready once its caches have synced', async () => {
    expect((await fetch(`http://127.0.0.1:${port()}/healthz`)).status).toBe(200);
    await eventually(async () => (await fetch(`http://127.0.0.1:${port()}/readyz`)).status === 200, 10_000, '/readyz 200');
    expect(await metric(port(), 'berth_leader')).toBe(1);
  });

  it('reconciles creates, updates and deletes of the primary objects', async () => {
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'one', labels: { role: 'parent' } }, data: { greeting: 'hi' } },
    });
    await eventually(async () => (await mirrorData('one'))?.greeting === 'hi', 15_000, 'the mirror');
    await core.patchNamespacedConfigMap({ namespace, name: 'one', body: [{ op: 'replace', path: '/data/greeting', value: 'hey' }] });
    await eventually(async () => (await mirrorData('one'))?.greeting === 'hey', 15_000, 'the updated mirror');
    await core.deleteNamespacedConfigMap({ namespace, name: 'one' });
    await eventually(async () => (await mirrorData('one')) === undefined, 15_000, 'the mirror to be deleted');
  });

  it('reconciles the owner when an owned object changes', async () => {
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'two', labels: { role: 'parent' } }, data: { greeting: 'hi' } },
    });
    await eventually(async () => (await mirrorData('two'))?.greeting === 'hi', 15_000, 'the mirror');
    await core.patchNamespacedConfigMap({
      namespace,
      name: 'two-mirror',
      body: [{ op: 'replace', path: '/data/greeting', value: 'tampered' }],
    });
    await eventually(async () => (await mirrorData('two'))?.greeting === 'hi', 15_000, 'the mirror restored');
  });

  it('counts reconciles, failures, retries, API requests and queue depth on /metrics', async () => {
    const before = {
      success: await metric(port(), 'berth_reconcile_total', { controller: 'mirror', result: 'success' }),
      errors: await metric(port(), 'berth_reconcile_errors_total', { controller: 'mirror' }),
      retries: await metric(port(), 'berth_workqueue_retries_total', { name: 'mirror' }),
      applies: await metric(port(), 'berth_kube_api_requests_total', { verb: 'patch', resource: 'configmaps' }),
      durations: await metric(port(), 'berth_reconcile_duration_seconds_count', { controller: 'mirror' }),
    };
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'three', labels: { role: 'parent' } }, data: { greeting: 'hi' } },
    });
    await eventually(async () => (await mirrorData('three'))?.greeting === 'hi', 15_000, 'the mirror');
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'bad', labels: { role: 'parent' } }, data: { fail: 'true' } },
    });
    await eventually(
      async () => (await metric(port(), 'berth_workqueue_retries_total', { name: 'mirror' })) >= before.retries + 3,
      15_000,
      'retries',
    );

    expect(await metric(port(), 'berth_reconcile_total', { controller: 'mirror', result: 'success' })).toBeGreaterThan(before.success);
    expect(await metric(port(), 'berth_reconcile_total', { controller: 'mirror', result: 'error' })).toBeGreaterThanOrEqual(3);
    expect(await metric(port(), 'berth_reconcile_errors_total', { controller: 'mirror' })).toBeGreaterThanOrEqual(before.errors + 3);
    expect(await metric(port(), 'berth_kube_api_requests_total', { verb: 'patch', resource: 'configmaps' })).toBeGreaterThan(
      before.applies,
    );
    expect(await metric(port(), 'berth_kube_api_requests_total', { verb: 'watch', resource: 'configmaps' })).toBeGreaterThanOrEqual(2);
    expect(await metric(port(), 'berth_reconcile_duration_seconds_count', { controller: 'mirror' })).toBeGreaterThan(before.durations);
    const text = await (await fetch(`http://127.0.0.1:${port()}/metrics`)).text();
    expect(text).toMatch(/^berth_workqueue_depth\{name="mirror"\} \d+$/m);

    // The failing object recovers once it no longer asks to fail: the backoff resets.
    await core.patchNamespacedConfigMap({ namespace, name: 'bad', body: [{ op: 'replace', path: '/data/fail', value: 'false' }] });
    await eventually(async () => (await mirrorData('bad'))?.fail === 'false', 15_000, 'the recovered mirror');
  });

  it('aggregates identical events instead of flooding the API server', async () => {
    const object = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'noisy' } } });
    // Every write of this object's Events, as the API server's watch reports them: the reconciler's
    // own events on other objects of the namespace are written by the same process in the same window.
    const writes = await watchEventWrites(namespace, 'involvedObject.name=noisy');
    try {
      for (let i = 0; i < 50; i++) manager.recorder.event(object, 'Warning', 'HotLoop', 'the same thing again');
      await manager.recorder.flush();
      const events = await eventually(
        async () => {
          const list = await core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=noisy' });
          return list.items.length === 1 && list.items[0]!.count === 50 ? list.items : undefined;
        },
        10_000,
        'one event counted 50 times',
      );
      expect(events[0]).toMatchObject({
        type: 'Warning',
        reason: 'HotLoop',
        message: 'the same thing again',
        involvedObject: { kind: 'ConfigMap', uid: object.metadata!.uid },
      });
      // The watch has delivered the write that made the final count.
      await eventually(async () => writes.seen.some((event) => event.count === 50), 10_000, 'the watch to see the count of 50');
      expect(writes.seen.length).toBeGreaterThanOrEqual(1);
      expect(writes.seen.length).toBeLessThanOrEqual(3);
    } finally {
      writes.stop();
    }
  });

  it('records the events its reconciler emits on the reconciled object', async () => {
    const list = await eventually(
      async () => {
        const events = await core.listNamespacedEvent({ namespace, fieldSelector: 'reason=Mirrored' });
        return events.items.length > 0 ? events.items : undefined;
      },
      10_000,
      'Mirrored events',
    );
    expect(list.every((event) => event.source?.component === 'berth-controller' && event.involvedObject.kind === 'ConfigMap')).toBe(true);
  });
});

describe('Manager readiness', () => {
  it('answers /readyz 503 with its reasons while a cache cannot sync or leadership is unknown', async () => {
    const manager = new Manager({
      kubeConfig: kc,
      healthPort: 0,
      healthHost: '127.0.0.1',
      // The lease's namespace does not exist: leadership can never be known.
      leaderElection: { namespace: 'no-such-namespace-for-leases', leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 250 },
      logger: createLogger({ level: 'silent' }),
    });
    manager.informer({ apiVersion: 'runtime-test.berth.dev/v1', kind: 'Missing', plural: 'missings' });
    await manager.start();
    try {
      const url = `http://127.0.0.1:${manager.healthPort}`;
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const response = await fetch(`${url}/readyz`);
      expect(response.status).toBe(503);
      const body = await response.text();
      expect(body).toContain('cache of missings not synced');
      expect(body).toContain('leadership not known yet');
      expect(manager.isLeader).toBe(false);
      expect((await fetch(`${url}/nothing-here`)).status).toBe(404);
    } finally {
      await manager.stop();
    }
  });
});

describe('Manager.stop', () => {
  it('lets the reconcile in flight finish, then closes its server', async () => {
    const namespace = await useNamespace('manager-stop');
    const manager = new Manager({
      kubeConfig: kc,
      healthPort: 0,
      healthHost: '127.0.0.1',
      logger: createLogger({ level: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' }),
    });
    const informer = manager.informer<V1ConfigMap>(configMaps, { namespaces: [namespace] });
    let release!: () => void;
    const finished: string[] = [];
    const started: string[] = [];
    manager.addController({
      name: 'slow',
      informer,
      reconcile: async ({ name }) => {
        started.push(name);
        await new Promise<void>((resolve) => (release = resolve));
        await core.patchNamespacedConfigMap({ namespace, name, body: [{ op: 'add', path: '/data', value: { done: 'yes' } }] });
        finished.push(name);
      },
    });
    await manager.start();
    const port = manager.healthPort!;
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'slow' } } });
    await eventually(async () => started.length === 1, 10_000, 'the reconcile to start');
    const stopped = manager.stop();
    setTimeout(() => release(), 100);
    await stopped;
    expect(finished).toEqual(['slow']);
    expect((await core.readNamespacedConfigMap({ namespace, name: 'slow' })).data).toEqual({ done: 'yes' });
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});

// Alone, with no manager running: every request on Events is the recorder's.
describe('EventRecorder', () => {
  it('writes each count once when repeats outlast the aggregation window (a loop slowed down by a loaded machine)', async () => {
    const namespace = await useNamespace('events');
    const object = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'slow-loop' } } });
    // Every request on Events, as the process makes it: identical PATCHes change nothing the watch would show.
    const requests: string[] = [];
    const stop = onKubeApiRequest(kc.getCurrentCluster()!.server, (labels) => {
      if (labels.resource === 'events' && labels.verb !== 'watch' && labels.verb !== 'list') requests.push(labels.verb);
    });
    // A window of 0: every repeat finds the window passed, as each does when the loop takes longer than it.
    const recorder = createEventRecorder(kc, { component: 'test', aggregateWindowMs: 0, logger: createLogger({ level: 'silent' }) });
    try {
      for (let i = 0; i < 50; i++) recorder.event(object, 'Warning', 'SlowLoop', 'again, slowly');
      await recorder.flush();
      const list = await core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=slow-loop' });
      expect(list.items.map((event) => event.count)).toEqual([50]);
      // The create, then one write of the count the repeats reached while it was in flight.
      expect(requests).toEqual(['create', 'patch']);
    } finally {
      stop();
    }
  });
});
