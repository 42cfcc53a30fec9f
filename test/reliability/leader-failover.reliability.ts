// Leader failover: two replicas with leader election while Deployments are created and edited; the
// leader is killed with SIGKILL (no lease release); the standby takes over once the lease runs out,
// and only one replica ever writes. Each replica's own /metrics counts every request it made to the
// API server by verb and resource, so "the standby wrote nothing while the leader lived" is read from
// the standby itself; managedFields show that every object Berth wrote has one Berth field manager.
import { CoordinationV1Api } from '@kubernetes/client-node';
import { describe, expect, inject, it } from 'vitest';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { eventually } from '../../workbench/support/poll.ts';
import { testKubeConfig, useNamespace } from '../support/cluster.ts';
import { converge, Fleet, newHistory, recordConfig, testFieldManager } from './support/fleet.ts';
import { recordFigures, sizeFromEnv } from './support/figures.ts';

const count = sizeFromEnv('BERTH_RELIABILITY_FAILOVER_DEPLOYMENTS', 60);
const leaseName = 'berth-controller';
const retryPeriodMs = 2_000;
const writeVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
// Leases are how replicas elect; Events are aggregated per replica. Neither is an object Berth manages.
const electionResources = new Set(['leases.coordination.k8s.io']);

interface ApiRequests {
  verb: string;
  resource: string;
  code: string;
  count: number;
}

async function apiRequests(probePort: number): Promise<ApiRequests[]> {
  const text = await (await fetch(`http://127.0.0.1:${probePort}/metrics`)).text();
  const requests: ApiRequests[] = [];
  for (const line of text.split('\n')) {
    const match = /^berth_kube_api_requests_total\{([^}]*)\} (\d+)/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    requests.push({ verb: labels.verb ?? '', resource: labels.resource ?? '', code: labels.code ?? '', count: Number(match[2]) });
  }
  return requests;
}

const managedWrites = (requests: ApiRequests[]) => requests.filter((r) => writeVerbs.has(r.verb) && !electionResources.has(r.resource));
const total = (requests: ApiRequests[]) => requests.reduce((sum, r) => sum + r.count, 0);

describe('leader failover', () => {
  it('the standby takes over after the leader is killed, and the two never both write', async () => {
    const kc = testKubeConfig();
    const coordination = kc.makeApiClient(CoordinationV1Api);
    const operatorNamespace = await useNamespace('berth-op');
    const namespace = await useNamespace('failover');
    const fleet = new Fleet(kc, namespace);
    const history = newHistory();
    const args = runArgs({
      operatorNamespace,
      watchNamespaces: [namespace, operatorNamespace],
      components: 'controller',
      leaderElect: true,
    });
    const replicas: BerthProcess[] = [spawnBerth(inject('kubeconfigPath'), args), spawnBerth(inject('kubeconfigPath'), args)];
    const probes = await Promise.all(replicas.map((r) => waitReady(r)));

    const leaderIndex = await eventually(
      async () => {
        const index = replicas.findIndex((r) => r.lines.some((line) => line.msg === 'became leader'));
        return index >= 0 ? index : undefined;
      },
      60_000,
      'a leader',
    );
    const leader = replicas[leaderIndex]!;
    const standby = replicas[1 - leaderIndex]!;
    const standbyProbe = probes[1 - leaderIndex]!;

    // Load: Deployments created and edited while the leader works; the kubelet stand-in runs too.
    const names = Array.from({ length: count }, (_, i) => `app-${String(i).padStart(3, '0')}`);
    for (let i = 0; i < names.length; i += 20) {
      await Promise.all(
        names.slice(i, i + 20).map(async (name) => {
          const config = { imageUri: `registry.example.com/${name}:1` };
          recordConfig(history, name, config);
          await fleet.create(name, config);
        }),
      );
    }
    await fleet.markWorkloadsAvailable();
    const standbyBefore = managedWrites(await apiRequests(standbyProbe));
    const lease = await coordination.readNamespacedLease({ namespace: operatorNamespace, name: leaseName });
    const leaseDurationMs = (lease.spec?.leaseDurationSeconds ?? 15) * 1000;
    const previousHolder = lease.spec?.holderIdentity;

    const killedAt = Date.now();
    await leader.kill();
    // Edits made while nobody leads must not be lost.
    await Promise.all(
      names.slice(0, Math.ceil(count / 4)).map(async (name) => {
        const config = { imageUri: `registry.example.com/${name}:2` };
        recordConfig(history, name, config);
        await fleet.patchSpec(name, { sourceRevisionConfig: config });
      }),
    );
    await standby.logged('became leader', leaseDurationMs * 3);
    const takeoverMs = Date.now() - killedAt;
    const newLease = await coordination.readNamespacedLease({ namespace: operatorNamespace, name: leaseName });

    const convergence = await converge(fleet, history, 180_000);
    const standbyAfter = await apiRequests(standbyProbe);

    // Every object Berth wrote has one field manager from Berth and no conflicting co-owner.
    const workloads = (await fleet.apps.listNamespacedDeployment({ namespace })).items;
    const services = (await fleet.core.listNamespacedService({ namespace })).items;
    const berthObjects = [...(await fleet.deployments()), ...(await fleet.revisions()), ...workloads, ...services];
    // Any other manager is named with what it wrote, e.g. "unknown Update Deployment f:metadata".
    type Managed = {
      kind?: string;
      metadata?: { managedFields?: Array<{ manager?: string; operation?: string; subresource?: string; fieldsV1?: object }> };
    };
    const foreignManagers = new Set<string>();
    for (const object of berthObjects as Managed[]) {
      for (const entry of object.metadata?.managedFields ?? []) {
        if (entry.manager === 'berth' || entry.manager === testFieldManager) continue;
        const fields = Object.entries(entry.fieldsV1 ?? {}).map(([k, v]) => `${k}{${Object.keys(v as object).join(',')}}`);
        foreignManagers.add(
          `${entry.manager} ${entry.operation} ${object.kind ?? ''}${entry.subresource ? `/${entry.subresource}` : ''} ${fields.join(',')}`,
        );
      }
    }
    const revisions = await fleet.duplicateRevisions(history);
    // A status write decided from a cache older than the object answers 409 by design (the precondition
    // on its resourceVersion; the controller decides again from a fresher cache). A 409 anywhere else
    // would be two writers.
    const isStatus = (r: { resource: string }) => r.resource.endsWith('/status');
    const conflicts = standbyAfter.filter((r) => r.code === '409' && !electionResources.has(r.resource) && !isStatus(r));
    const staleStatusDecisions = standbyAfter.filter((r) => r.code === '409' && isStatus(r));

    recordFigures('leader-failover', {
      deployments: count,
      faultsInjected: 1,
      leaseDurationMs,
      takeoverMsAfterKill: takeoverMs,
      standbyWritesWhileLeaderLived: total(standbyBefore),
      newLeaderWrites: total(managedWrites(standbyAfter)),
      writeConflicts409: total(conflicts),
      staleStatusWritesRefused409: total(staleStatusDecisions),
      objectsChecked: berthObjects.length,
      otherFieldManagers: [...foreignManagers].sort().join('; ') || 'none',
      duplicates: revisions.duplicates.length,
      convergedMsAfterTakeover: convergence.ms,
    });
    expect(newLease.spec?.holderIdentity).not.toBe(previousHolder);
    // The lease was last renewed at most one retry period before the kill, and the standby polls once
    // per retry period: it leads no later than leaseDuration + 2 retry periods after the kill.
    expect(takeoverMs).toBeLessThanOrEqual(leaseDurationMs + 2 * retryPeriodMs);
    expect(standbyBefore).toEqual([]);
    expect(total(managedWrites(standbyAfter))).toBeGreaterThan(0);
    expect(conflicts).toEqual([]);
    // Besides the test's own writes (creates, spec edits, the kubelet stand-in), only Berth's one field
    // manager: a write without a field manager shows up as "unknown" and cannot be told apart.
    expect([...foreignManagers]).toEqual([]);
    expect(revisions.duplicates).toEqual([]);
    expect(standby.child.exitCode).toBeNull();
  });
});
