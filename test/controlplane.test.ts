// The test control plane is real: objects are stored, watched, garbage-collected and deleted by the
// same kube-apiserver, etcd and kube-controller-manager that a cluster runs.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, Watch, type V1ConfigMap } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { eventually } from '../workbench/support/poll.ts';
import { kubectl, testKubeConfig, useNamespace } from './support/cluster.ts';

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);

describe('the test control plane', () => {
  it('stores, watches and deletes objects', async () => {
    const namespace = await useNamespace('smoke');
    const seen: string[] = [];
    const watch = await new Watch(kc).watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      {},
      (phase, object: V1ConfigMap) => seen.push(`${phase} ${object.metadata?.name} ${object.data?.greeting ?? ''}`.trim()),
      () => {},
    );
    try {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'hello' }, data: { greeting: 'hi' } } });
      await core.patchNamespacedConfigMap({ namespace, name: 'hello', body: [{ op: 'replace', path: '/data/greeting', value: 'hey' }] });
      await core.deleteNamespacedConfigMap({ namespace, name: 'hello' });
      await eventually(async () => seen.length >= 3, 10_000, 'three watch events');
      expect(seen).toEqual(['ADDED hello hi', 'MODIFIED hello hey', 'DELETED hello hey']);
      await expect(core.readNamespacedConfigMap({ namespace, name: 'hello' })).rejects.toMatchObject({ code: 404 });
    } finally {
      watch.abort();
    }
  });

  it('garbage-collects objects whose owner is gone (kube-controller-manager runs)', async () => {
    const namespace = await useNamespace('gc');
    const owner = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'owner' } } });
    await core.createNamespacedConfigMap({
      namespace,
      body: {
        metadata: {
          name: 'dependent',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! }],
        },
      },
    });
    await core.deleteNamespacedConfigMap({ namespace, name: 'owner' });
    await eventually(
      () =>
        core.readNamespacedConfigMap({ namespace, name: 'dependent' }).then(
          () => false,
          (e: { code?: number }) => e.code === 404,
        ),
      30_000,
      'the dependent to be garbage-collected',
    );
  });

  it('serves kubectl with the kubeconfig it wrote', async () => {
    const result = await kubectl(['get', 'namespaces', '-o', 'name']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('namespace/default');
  });

  it('leaves no etcd or kube-apiserver behind when its owner is killed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'berth-orphan-'));
    const running = () =>
      execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line.includes(dataDir) && !line.startsWith('/bin/sh'));
    try {
      const owner = spawn(process.execPath, [join(import.meta.dirname, 'fixtures/start-control-plane.ts'), dataDir], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve, reject) => {
        owner.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
        owner.once('exit', (code) => reject(new Error(`fixture exited with ${code}`)));
      });
      expect(running().some((line) => line.includes('kube-apiserver'))).toBe(true);
      expect(running().some((line) => line.includes('etcd'))).toBe(true);
      owner.kill('SIGKILL');
      await eventually(async () => running().length === 0, 20_000, 'etcd and kube-apiserver to exit');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
