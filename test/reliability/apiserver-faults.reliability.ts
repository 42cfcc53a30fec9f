// API server faults: kube-apiserver restarted during reconciliation, then kube-apiserver and etcd
// together, then etcd compacted under a fresh watch cache so every resumed watch is answered 410 Gone.
// After each fault the test changes specs at once, while Berth is still reconnecting; Berth must
// recover by itself and converge on every change. This file runs its OWN control plane, so restarting
// it disturbs no other suite.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../workbench/controlplane.ts';
import { installCrds } from '../../workbench/install-crds.ts';
import { closeKubeConnections } from '../../src/runtime/index.ts';
import { runArgs, spawnBerth, waitReady, type BerthProcess } from '../support/berth-process.ts';
import { converge, Fleet, newHistory, recordConfig, type WrittenHistory } from './support/fleet.ts';
import { recordFigures, sizeFromEnv } from './support/figures.ts';

const count = sizeFromEnv('BERTH_RELIABILITY_FAULT_DEPLOYMENTS', 40);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let controlPlane: ControlPlane;
let dataDir: string;
let kc: KubeConfig;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'berth-faults-'));
  controlPlane = await startControlPlane({ dataDir, ephemeral: true });
  kc = new KubeConfig();
  kc.loadFromFile(controlPlane.kubeconfigPath);
  await installCrds(kc, resolve(import.meta.dirname, '../../crds'));
});

afterAll(async () => {
  await controlPlane?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** etcd's JSON gateway: the current revision, and a compaction up to it. */
async function compactEtcd(etcdUrl: string): Promise<number> {
  const range = (await (
    await fetch(`${etcdUrl}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('/').toString('base64') }) })
  ).json()) as {
    header: { revision: string };
  };
  const revision = Number(range.header.revision);
  const compaction = await fetch(`${etcdUrl}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision: String(revision), physical: true }),
  });
  if (!compaction.ok) throw new Error(`etcd compaction answered ${compaction.status}: ${await compaction.text()}`);
  return revision;
}

async function withRetries<T>(what: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await what();
    } catch (error) {
      if (attempt >= 60) throw error;
      await sleep(500);
    }
  }
}

async function editImages(fleet: Fleet, history: WrittenHistory, names: string[], tag: string): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      const config = { imageUri: `registry.example.com/${name}:${tag}` };
      // The API server may still be coming up: a client retries, so the test does too.
      await withRetries(() => fleet.patchSpec(name, { sourceRevisionConfig: config }));
      recordConfig(history, name, config);
    }),
  );
}

describe('API server and etcd faults', () => {
  it('recovers from restarts and a compaction by itself and converges with no missed update', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const operatorNamespace = 'berth-system';
    const namespace = 'faults';
    await core.createNamespace({ body: { metadata: { name: operatorNamespace } } });
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const fleet = new Fleet(kc, namespace);
    const history = newHistory();
    const names = Array.from({ length: count }, (_, i) => `app-${String(i).padStart(3, '0')}`);
    const berth: BerthProcess = spawnBerth(
      controlPlane.kubeconfigPath,
      runArgs({ operatorNamespace, watchNamespaces: [namespace, operatorNamespace], components: 'controller' }),
    );
    await waitReady(berth);

    for (const name of names) {
      const config = { imageUri: `registry.example.com/${name}:1` };
      recordConfig(history, name, config);
      await fleet.create(name, config);
    }
    const faults: string[] = [];
    const third = Math.ceil(count / 3);

    // 1. kube-apiserver restarted mid-reconcile (the creates above are still being worked on).
    await controlPlane.restart();
    faults.push('kube-apiserver restart');
    closeKubeConnections(kc);
    await editImages(fleet, history, names.slice(0, third), '2');

    // 2. kube-apiserver and etcd restarted together.
    await sleep(1000);
    await controlPlane.restart({ etcd: true });
    faults.push('kube-apiserver + etcd restart');
    await editImages(fleet, history, names.slice(third, 2 * third), '2');

    // 3. Move etcd on with writes Berth does not watch, compact, and restart the API server so its
    //    watch cache starts after every resourceVersion Berth holds: each resumed watch gets 410.
    const relistsBefore = berth.lines.filter((line) => String(line.msg).includes('410 Gone')).length;
    for (let i = 0; i < 50; i += 1) {
      await core.createNamespacedConfigMap({
        namespace: operatorNamespace,
        body: { metadata: { name: `filler-${i}` }, data: { i: String(i) } },
      });
    }
    const compactedAt = await compactEtcd(controlPlane.etcdUrl);
    await controlPlane.restart();
    faults.push(`etcd compaction at revision ${compactedAt} + kube-apiserver restart`);
    await editImages(fleet, history, names.slice(2 * third), '2');
    // A second change right behind the first: the last one written is the one that must win.
    await editImages(fleet, history, names.slice(0, 5), '3');

    const convergence = await converge(fleet, history, 180_000);
    const relists = berth.lines.filter((line) => String(line.msg).includes('410 Gone')).length - relistsBefore;
    const orphans = await fleet.orphans();
    const revisions = await fleet.duplicateRevisions(history);
    recordFigures('apiserver-faults', {
      deployments: count,
      faultsInjected: faults.length,
      faults: faults.join('; '),
      relistsAfter410: relists,
      objectsChecked: count + orphans.checked,
      revisions: revisions.total,
      duplicates: revisions.duplicates.length,
      orphans: orphans.orphans.length,
      convergedMsAfterLastFault: convergence.ms,
    });
    expect(relists).toBeGreaterThan(0);
    expect(revisions.duplicates).toEqual([]);
    expect(revisions.unexpected).toEqual([]);
    expect(orphans.orphans).toEqual([]);
    expect(revisions.total).toBeGreaterThanOrEqual(count);
    expect(berth.child.exitCode).toBeNull();
    await berth.stop();
  });
});
