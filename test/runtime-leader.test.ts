// Two managers against one API server compete for one Lease: exactly one reconciles; stopping it
// hands over to the other within the lease duration; a leader that loses its lease stops at once.
import { CoordinationV1Api, CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { Manager, type Informer } from '../src/runtime/index.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { proxiedKubeConfig } from './fixtures/runtime-faulty-proxy.ts';
import { eventually } from '../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from './support/cluster.ts';

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' } as const;
const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const leases = kc.makeApiClient(CoordinationV1Api);
const timing = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 250 };

interface Replica {
  manager: Manager;
  reconciled: string[];
  aborted: string[];
}

function replica(
  namespace: string,
  identity: string,
  leaseName: string,
  onReconcile?: (name: string, signal: AbortSignal) => Promise<void>,
  kubeConfig: KubeConfig = kc,
): Replica {
  const manager = new Manager({
    kubeConfig,
    healthPort: 0,
    healthHost: '127.0.0.1',
    leaderElection: { namespace, leaseName, identity, ...timing },
    logger: createLogger({ level: process.env.BERTH_TEST_LOG_LEVEL ?? 'silent' }),
  });
  const reconciled: string[] = [];
  const aborted: string[] = [];
  const informer: Informer<V1ConfigMap> = manager.informer(configMaps, { namespaces: [namespace] });
  manager.addController({
    name: 'leader-test',
    informer,
    reconcile: async ({ name }, { signal }) => {
      reconciled.push(name);
      signal.addEventListener('abort', () => aborted.push(name));
      await onReconcile?.(name, signal);
    },
  });
  return { manager, reconciled, aborted };
}

async function leaderGauge(manager: Manager): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${manager.healthPort}/metrics`)).text();
  return /^berth_leader (\d+)$/m.exec(text)?.[1] ?? 'missing';
}

describe('leader election', () => {
  const running: Manager[] = [];
  afterAll(() => Promise.all(running.map((manager) => manager.stop())));

  it('lets exactly one replica reconcile and hands over when it stops', async () => {
    const namespace = await useNamespace('leader');
    const a = replica(namespace, 'replica-a', 'handover');
    const b = replica(namespace, 'replica-b', 'handover');
    running.push(a.manager, b.manager);
    await Promise.all([a.manager.start(), b.manager.start()]);
    await eventually(async () => a.manager.isLeader || b.manager.isLeader, 10_000, 'a leader');
    const [leader, standby] = a.manager.isLeader ? [a, b] : [b, a];

    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'first' } } });
    await eventually(async () => leader.reconciled.includes('first'), 10_000, 'the leader to reconcile');
    await eventually(
      async () => (await fetch(`http://127.0.0.1:${standby.manager.healthPort}/readyz`)).status === 200,
      10_000,
      'the standby to be ready',
    );
    expect(standby.reconciled).toEqual([]);
    expect(standby.manager.isLeader).toBe(false);
    expect(await leaderGauge(leader.manager)).toBe('1');
    expect(await leaderGauge(standby.manager)).toBe('0');
    const lease = await leases.readNamespacedLease({ namespace, name: 'handover' });
    expect(lease.spec?.holderIdentity).toBe(leader.manager.identity);

    await leader.manager.stop();
    const released = await leases.readNamespacedLease({ namespace, name: 'handover' });
    // Released: a standby need not wait for the old lease to run out.
    expect(released.spec?.holderIdentity === undefined || released.spec.holderIdentity === standby.manager.identity).toBe(true);
    await eventually(async () => standby.manager.isLeader, timing.leaseDurationMs, 'the standby to lead within the lease duration');
    // Everything is reconciled once more by the new leader, and new objects too.
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'second' } } });
    await eventually(
      async () => standby.reconciled.includes('first') && standby.reconciled.includes('second'),
      10_000,
      'the new leader to reconcile',
    );
    expect(leader.reconciled).not.toContain('second');
    expect((await leases.readNamespacedLease({ namespace, name: 'handover' })).spec?.holderIdentity).toBe(standby.manager.identity);
  });

  it('runs leader tasks only on the leader, again for each new term, retrying one that fails', async () => {
    const namespace = await useNamespace('leader-tasks');
    const runs: string[] = [];
    let failFirst = true;
    const withTask = (identity: string) => {
      const r = replica(namespace, identity, 'tasks');
      r.manager.whenLeading('record', async () => {
        runs.push(identity);
        if (identity === 'replica-a' && failFirst) {
          failFirst = false;
          throw new Error('the API server said no, once');
        }
      });
      return r;
    };
    const a = withTask('replica-a');
    running.push(a.manager);
    await a.manager.start();
    await eventually(async () => a.manager.isLeader, 10_000, 'a to lead');
    const b = withTask('replica-b');
    running.push(b.manager);
    await b.manager.start();
    // A's task failed once, then succeeded (retried after 1 s); the standby ran nothing.
    await eventually(async () => runs.filter((r) => r === 'replica-a').length === 2, 10_000, "a's task retried");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(runs).toEqual(['replica-a', 'replica-a']);
    await a.manager.stop();
    await eventually(async () => runs.includes('replica-b'), timing.leaseDurationMs + 2000, "b's task once it leads");
    expect(runs).toEqual(['replica-a', 'replica-a', 'replica-b']);
  });

  it('hands the Lease over on stopLeading while its caches keep following the cluster (a draining HTTP API reads them)', async () => {
    const namespace = await useNamespace('leader-drain');
    const a = replica(namespace, 'replica-d', 'drain');
    const b = replica(namespace, 'replica-e', 'drain');
    running.push(a.manager, b.manager);
    const caches = new Map([a, b].map((r) => [r, r.manager.informer<V1ConfigMap>(configMaps, { namespaces: [namespace] })]));
    await Promise.all([a.manager.start(), b.manager.start()]);
    await eventually(async () => a.manager.isLeader || b.manager.isLeader, 10_000, 'a leader');
    const [leader, standby] = a.manager.isLeader ? [a, b] : [b, a];

    await leader.manager.stopLeading();
    expect(leader.manager.isLeader).toBe(false);
    await eventually(async () => standby.manager.isLeader, timing.leaseDurationMs, 'the standby to lead');
    expect((await fetch(`http://127.0.0.1:${leader.manager.healthPort}/readyz`)).status).toBe(503);
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'after-handover' } } });
    await eventually(
      async () => caches.get(leader)!.get(namespace, 'after-handover') !== undefined,
      10_000,
      "the stepped-down replica's cache to see a new object",
    );
    await eventually(async () => standby.reconciled.includes('after-handover'), 10_000, 'the new leader to reconcile it');
    expect(leader.reconciled).not.toContain('after-handover');
    await leader.manager.stop();
  });

  it('stops reconciling at once when the lease is taken away', async () => {
    const namespace = await useNamespace('leader-lost');
    const lone = replica(
      namespace,
      'replica-c',
      'taken',
      (_name, signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())),
    );
    running.push(lone.manager);
    await lone.manager.start();
    await eventually(async () => lone.manager.isLeader, 10_000, 'leadership');
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'long-running' } } });
    await eventually(async () => lone.reconciled.includes('long-running'), 10_000, 'the reconcile to start');

    // The leader renews every retry period: take the lease with the usual read-modify-write, again
    // when a renewal lands in between (409).
    await eventually(
      async () => {
        const lease = await leases.readNamespacedLease({ namespace, name: 'taken' });
        await leases.replaceNamespacedLease({
          namespace,
          name: 'taken',
          body: {
            ...lease,
            spec: { ...lease.spec, holderIdentity: 'someone-else', leaseDurationSeconds: 3600, renewTime: lease.spec?.renewTime },
          },
        });
        return true;
      },
      10_000,
      'the lease to be taken',
    );
    await eventually(async () => !lone.manager.isLeader, 10_000, 'the replica to step down');
    // The reconcile in flight was told to stop, and the replica no longer claims leadership.
    expect(lone.aborted).toEqual(['long-running']);
    expect(await leaderGauge(lone.manager)).toBe('0');
    expect((await leases.readNamespacedLease({ namespace, name: 'taken' })).spec?.holderIdentity).toBe('someone-else');
  });

  it('steps down when it cannot renew, before another replica takes over', async () => {
    const namespace = await useNamespace('leader-cut');
    const { proxy, kubeConfig } = await proxiedKubeConfig(kc);
    try {
      const cutOff = replica(
        namespace,
        'replica-d',
        'unreachable',
        (_name, signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())),
        kubeConfig,
      );
      running.push(cutOff.manager);
      await cutOff.manager.start();
      await eventually(async () => cutOff.manager.isLeader, 10_000, 'leadership');
      const other = replica(namespace, 'replica-e', 'unreachable');
      running.push(other.manager);
      await other.manager.start();
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'work' } } });
      await eventually(async () => cutOff.reconciled.includes('work'), 10_000, 'the reconcile to start');

      let bothLed = false;
      const watchdog = setInterval(() => (bothLed ||= cutOff.manager.isLeader && other.manager.isLeader), 20);
      proxy.refuse();
      proxy.cut();
      await eventually(async () => !cutOff.manager.isLeader, 10_000, 'the cut-off leader to step down');
      expect(cutOff.aborted).toEqual(['work']);
      await eventually(async () => other.manager.isLeader, 15_000, 'the other replica to take over once the lease ran out');
      clearInterval(watchdog);
      expect(bothLed).toBe(false);
      await eventually(async () => other.reconciled.includes('work'), 10_000, 'the new leader to reconcile');
    } finally {
      proxy.accept();
      await proxy.close();
    }
  });
});
