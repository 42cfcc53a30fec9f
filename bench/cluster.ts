// The control plane the benchmark runs against: the same etcd + kube-apiserver (+ controller-manager)
// the tests start, with Berth's CRDs installed, in a throwaway data directory.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startControlPlane } from '../workbench/controlplane.ts';
import { installCrds } from '../workbench/install-crds.ts';

export interface BenchCluster {
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
  server: string;
  /** A fresh namespace, labelled as given. */
  namespace(prefix: string, labels?: Record<string, string>): Promise<string>;
  stop(): Promise<void>;
}

export async function startBenchCluster(log: (message: string) => void): Promise<BenchCluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-bench-'));
  const controlPlane = await startControlPlane({ dataDir, ephemeral: true, log });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(controlPlane.kubeconfigPath);
  await installCrds(kubeConfig, resolve(import.meta.dirname, '../crds'));
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return {
    kubeConfig,
    kubeconfigPath: controlPlane.kubeconfigPath,
    server: controlPlane.server,
    async namespace(prefix, labels = {}) {
      const name = `${prefix}-${randomBytes(3).toString('hex')}`;
      await core.createNamespace({ body: { metadata: { name, labels } } });
      return name;
    },
    async stop() {
      await controlPlane.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
